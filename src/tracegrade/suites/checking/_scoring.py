"""Scoring one attempt: owner-aware check outcomes, attempt status and metric observations."""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(slots=True)
class _Compiled:
    expectation: Expectation
    tokens: tuple[str, ...]
    each: tuple[str, ...] | None
    comparison: Comparison
    rule: Rule | None
    """The rule of a built-in comparison, applied directly (no coroutine per check); None for the others."""
    results: _Results


class _Results:
    """The check results of one expectation name, each made once and shared (they are frozen)."""

    __slots__ = ("failed", "made", "name", "passed")

    def __init__(self, name: str) -> None:
        self.name = name
        self.passed = CheckResult(name, "passed")
        self.failed = CheckResult(name, "failed", "mismatch")
        self.made: dict[tuple[str, str | None], CheckResult] = {}

    def of(self, outcome: str, reason: str | None) -> CheckResult:
        """The result with this outcome and reason."""
        found = self.made.get((outcome, reason))
        if found is None:
            found = self.made[(outcome, reason)] = CheckResult(self.name, outcome, reason)  # type: ignore[arg-type]
        return found


class _Shared:
    """What the cases of one suite share: comparisons and check results by name."""

    def __init__(self, registry: ScorerRegistry) -> None:
        self.registry = registry
        self.comparisons: dict[str, tuple[Comparison, Rule | None]] = {}
        self.results: dict[str, _Results] = {}

    def compiled(self, expectation: Expectation) -> _Compiled:
        """One expectation ready to check."""
        found = self.comparisons.get(expectation.comparison)
        if found is None:
            comparison = _comparison(self.registry, expectation.comparison)
            rule = comparison.rule if type(comparison) is BuiltinComparison else None
            found = self.comparisons[expectation.comparison] = (comparison, rule)
        results = self.results.get(expectation.name)
        if results is None:
            results = self.results[expectation.name] = _Results(expectation.name)
        each = None if expectation.each is None else pointer_tokens(expectation.each)
        return _Compiled(expectation, pointer_tokens(expectation.path), each, found[0], found[1], results)


def _comparison(registry: ScorerRegistry, name: str) -> Comparison:
    comparison = registry.get(name)
    if comparison is None:
        raise ConfigError(f"comparison {name!r} is not registered (load the dataset with the same registry)")
    return comparison


class CaseScorer:
    """Scores results of one case; built once and reused for every repetition."""

    def __init__(self, case: Case, metrics: tuple[Metric, ...], registry: ScorerRegistry,
                 judge: JudgeAsker | None, case_json: dict[str, Any] | None = None,
                 shared: _Shared | None = None) -> None:
        self.case = case
        case_json = case_json if case_json is not None else case.model_dump(mode="json")
        self.input: dict[str, Any] = case_json["input"]
        self.expectations: list[dict[str, Any]] = case_json["expectations"]
        self.input_sha256 = sha256_json(self.input)
        self.expectations_sha256 = sha256_json(self.expectations)
        shared = shared if shared is not None else _Shared(registry)
        self._checks = [shared.compiled(e) for e in case.expectations]
        self._metrics = [(m, next(iter(matching_expectation(m, case)), None)) for m in metrics]
        self._ask_judge: AskJudge | None = None if judge is None else partial(judge_check, judge)

    async def score(self, observation: Observation, repetition: int, *, details: bool) -> AttemptRecord:
        """The attempt record for ``observation``."""
        result = observation.result
        status, error_code = ("error", observation.error_code or "invalid_result") if result is None \
            else attempt_status(result)
        valid = result if result is not None and status != "error" else None
        scored = []
        for compiled in self._checks:
            found = self._check(compiled, valid)
            if type(found) is not Scored:
                found = Scored(await self._compare(compiled, found), found)
            scored.append(found)
        checks = tuple(s.check for s in scored)
        by_name = {s.check.name: s for s in scored}
        usage = observation.usage if observation.usage is not None else _execution_usage(valid)
        return AttemptRecord(
            id=self.case.id, repetition=repetition, status=status,  # type: ignore[arg-type]
            passed=all(check.outcome == "passed" for check in checks), checks=checks,
            input_sha256=self.input_sha256, expectations_sha256=self.expectations_sha256, error_code=error_code,
            elapsed_seconds=observation.elapsed_seconds, usage=read_usage(usage),
            invocations=invocations(valid) if valid is not None else (),
            metrics={m.name: observe(m, e, by_name[e.name] if e else None) for m, e in self._metrics},
            details={"input": self.input, "expectations": self.expectations, "result": result} if details else None)

    def _check(self, compiled: _Compiled, result: dict[str, Any] | None) -> Any:
        """The scored check; for a comparison that is not built in, the value it is still to compare."""
        results = compiled.results
        if result is None:
            return Scored(results.of("error", "no_valid_result"), ABSENT)
        value = resolve(result, compiled.tokens)
        if value is ABSENT:
            owner = owner_status(result, compiled.tokens)
            if owner == "skipped":
                return Scored(results.of("skipped", "owner_skipped"), ABSENT)
            if owner in ("failed", "cancelled"):
                return Scored(results.of("error", f"owner_{owner}"), ABSENT)
            if not compiled.expectation.absent_as_null or (owner is not None and owner not in EXECUTED_STATUSES):
                return Scored(results.of("missing", "path_absent"), ABSENT)
            value = None
        if compiled.each is not None:
            try:
                value = project(value, compiled.each)
            except ProjectionError as exc:
                return Scored(results.of("failed", f"projection_{exc}"), value)
        if compiled.rule is None:
            return value
        passed = compiled.rule(value, compiled.expectation.expected, self.input)
        return Scored(results.passed if passed else results.failed, value)

    async def _compare(self, compiled: _Compiled, value: Any) -> CheckResult:
        check = CheckContext(value, compiled.expectation.expected, self.input, self._ask_judge)
        passed, reason = await compiled.comparison.compare(check)
        if passed is None:
            return compiled.results.of("error", reason)
        return compiled.results.passed if passed else compiled.results.failed


def _execution_usage(result: dict[str, Any] | None) -> Any:
    execution = result.get("execution") if result is not None else None
    return execution.get("usage") if isinstance(execution, dict) else None


class SuiteScorer:
    """One :class:`CaseScorer` per case of a suite, by case id."""

    def __init__(self, suite: SuiteSpec, registry: ScorerRegistry, judge: JudgeAsker | None) -> None:
        self.suite = suite
        shared = _Shared(registry)
        self.cases = {case.id: CaseScorer(case, suite.metrics, registry, judge, data, shared)
                      for case, data in zip(suite.cases, suite.case_json, strict=True)}
