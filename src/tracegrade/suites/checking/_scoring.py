"""Scoring one attempt: owner-aware check outcomes, attempt status and metric observations."""

from __future__ import annotations

from functools import partial
from typing import Any

from tracegrade.errors import ConfigError
from tracegrade.suites.checking._judge import JudgeAsker, judge_check
from tracegrade.suites.checking._metrics import observe
from tracegrade.suites.checking._owners import attempt_status, invocations, owner_status, read_usage
from tracegrade.suites.checking._records import EXECUTED_STATUSES, AttemptRecord, CheckResult, Observation, Scored
from tracegrade.suites.reading._comparisons import (
    AskJudge,
    BuiltinComparison,
    CheckContext,
    Comparison,
    ProjectionError,
    Rule,
    ScorerRegistry,
    project,
)
from tracegrade.suites.reading._dataset import Case, Expectation, Metric, SuiteSpec, sha256_json
from tracegrade.suites.reading._json import ABSENT, pointer_tokens, resolve
from tracegrade.suites.reading._rules import matching_expectation

__all__ = ["CaseScorer", "SuiteScorer"]


class _Compiled:
    """How to check one expectation shape (name, path, each, comparison, absent_as_null), shared by the cases."""

    __slots__ = ("absent_as_null", "comparison", "each", "failed", "made", "name", "passed", "rule", "tokens")

    def __init__(self, expectation: Expectation, comparison: Comparison, rule: Rule | None) -> None:
        self.name = expectation.name
        self.tokens = pointer_tokens(expectation.path)
        self.each = None if expectation.each is None else pointer_tokens(expectation.each)
        self.absent_as_null = expectation.absent_as_null
        self.comparison = comparison
        self.rule = rule
        """The rule of a built-in comparison, applied directly (no coroutine per check); None for the others."""
        self.passed = CheckResult(self.name, "passed")
        self.failed = CheckResult(self.name, "failed", "mismatch")
        self.made: dict[tuple[str, str | None], CheckResult] = {}

    def of(self, outcome: str, reason: str | None) -> CheckResult:
        """The result with this outcome and reason (check results are frozen: each is made once and shared)."""
        found = self.made.get((outcome, reason))
        if found is None:
            found = self.made[(outcome, reason)] = CheckResult(self.name, outcome, reason)  # type: ignore[arg-type]
        return found


class _Shared:
    """What the cases of one suite share: comparisons and compiled expectation shapes."""

    def __init__(self, registry: ScorerRegistry) -> None:
        self.registry = registry
        self.comparisons: dict[str, tuple[Comparison, Rule | None]] = {}
        self.compiled: dict[tuple[str, str, str | None, str, bool], _Compiled] = {}

    def check(self, expectation: Expectation) -> tuple[_Compiled, Any]:
        """One expectation ready to check: its compiled shape and its gold."""
        key = (expectation.name, expectation.path, expectation.each, expectation.comparison,
               expectation.absent_as_null)
        found = self.compiled.get(key)
        if found is None:
            comparison = self.comparisons.get(expectation.comparison)
            if comparison is None:
                made = _comparison(self.registry, expectation.comparison)
                rule = made.rule if type(made) is BuiltinComparison else None
                comparison = self.comparisons[expectation.comparison] = (made, rule)
            found = self.compiled[key] = _Compiled(expectation, *comparison)
        return found, expectation.expected


_PENDING = object()
"""What :meth:`CaseScorer._check` returns as the result of a check its comparison has still to decide."""


def _comparison(registry: ScorerRegistry, name: str) -> Comparison:
    comparison = registry.get(name)
    if comparison is None:
        raise ConfigError(f"comparison {name!r} is not registered (load the dataset with the same registry)")
    return comparison


class CaseScorer:
    """Scores results of one case; built once and reused for every repetition."""

    def __init__(self, case: Case, metrics: tuple[Metric, ...], registry: ScorerRegistry,
                 judge: JudgeAsker | None, case_json: dict[str, Any] | None = None,
                 shared: _Shared | None = None, digests: tuple[str, str] | None = None) -> None:
        self.case = case
        case_json = case_json if case_json is not None else case.model_dump(mode="json")
        self.input: dict[str, Any] = case_json["input"]
        self.expectations: list[dict[str, Any]] = case_json["expectations"]
        self.input_sha256, self.expectations_sha256 = digests if digests is not None else \
            (sha256_json(self.input), sha256_json(self.expectations))
        shared = shared if shared is not None else _Shared(registry)
        self._checks = [shared.check(e) for e in case.expectations]
        metrics_of = [(m, next(iter(matching_expectation(m, case)), None)) for m in metrics]
        self._metrics = [(m, e, None if e is None else _position(case.expectations, e)) for m, e in metrics_of]
        self._ask_judge: AskJudge | None = None if judge is None else partial(judge_check, judge)

    async def score(self, observation: Observation, repetition: int, *, details: bool) -> AttemptRecord:
        """The attempt record for ``observation``."""
        result = observation.result
        status, error_code = ("error", observation.error_code or "invalid_result") if result is None \
            else attempt_status(result)
        valid = result if result is not None and status != "error" else None
        checks: list[CheckResult] = []
        values: list[Any] = []
        passed = True
        for compiled, expected in self._checks:
            check, value = self._check(compiled, expected, valid)
            if check is _PENDING:
                check = await self._compare(compiled, expected, value)
            if check.outcome != "passed":
                passed = False
            checks.append(check)
            values.append(value)
        usage = observation.usage if observation.usage is not None else _execution_usage(valid)
        return AttemptRecord(
            id=self.case.id, repetition=repetition, status=status,  # type: ignore[arg-type]
            passed=passed, checks=tuple(checks),
            input_sha256=self.input_sha256, expectations_sha256=self.expectations_sha256, error_code=error_code,
            elapsed_seconds=observation.elapsed_seconds, usage=read_usage(usage),
            invocations=invocations(valid) if valid is not None else (),
            metrics={m.name: observe(m, e, None if at is None else Scored(checks[at], values[at]))
                     for m, e, at in self._metrics},
            details={"input": self.input, "expectations": self.expectations, "result": result} if details else None)

    def _check(self, compiled: _Compiled, expected: Any, result: dict[str, Any] | None) -> tuple[Any, Any]:
        """The check result and the value compared; ``_PENDING`` for a comparison that is not built in."""
        if result is None:
            return compiled.of("error", "no_valid_result"), ABSENT
        value = resolve(result, compiled.tokens)
        if value is ABSENT:
            owner = owner_status(result, compiled.tokens)
            if owner == "skipped":
                return compiled.of("skipped", "owner_skipped"), ABSENT
            if owner in ("failed", "cancelled"):
                return compiled.of("error", f"owner_{owner}"), ABSENT
            if not compiled.absent_as_null or (owner is not None and owner not in EXECUTED_STATUSES):
                return compiled.of("missing", "path_absent"), ABSENT
            value = None
        if compiled.each is not None:
            try:
                value = project(value, compiled.each)
            except ProjectionError as exc:
                return compiled.of("failed", f"projection_{exc}"), value
        rule = compiled.rule
        if rule is None:
            return _PENDING, value
        return (compiled.passed if rule(value, expected, self.input) else compiled.failed), value

    async def _compare(self, compiled: _Compiled, expected: Any, value: Any) -> CheckResult:
        check = CheckContext(value, expected, self.input, self._ask_judge)
        passed, reason = await compiled.comparison.compare(check)
        if passed is None:
            return compiled.of("error", reason)
        return compiled.passed if passed else compiled.failed


def _position(expectations: list[Expectation], expectation: Expectation) -> int:
    return next(i for i, candidate in enumerate(expectations) if candidate is expectation)


def _execution_usage(result: dict[str, Any] | None) -> Any:
    execution = result.get("execution") if result is not None else None
    return execution.get("usage") if isinstance(execution, dict) else None


class SuiteScorer:
    """One :class:`CaseScorer` per case of a suite, by case id."""

    def __init__(self, suite: SuiteSpec, registry: ScorerRegistry, judge: JudgeAsker | None) -> None:
        self.suite = suite
        shared = _Shared(registry)
        self.cases = {case.id: CaseScorer(case, suite.metrics, registry, judge, data, shared, digests)
                      for case, data, digests in zip(suite.cases, suite.case_json, suite.case_digests, strict=True)}
