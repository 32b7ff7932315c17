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
    CheckContext,
    Comparison,
    ProjectionError,
    ScorerRegistry,
    project,
)
from tracegrade.suites.reading._dataset import Case, Expectation, Metric, SuiteSpec, sha256_json
from tracegrade.suites.reading._json import ABSENT, pointer_tokens, resolve
from tracegrade.suites.reading._rules import matching_expectation

__all__ = ["CaseScorer", "SuiteScorer"]


@dataclass(frozen=True, slots=True)
class _Compiled:
    expectation: Expectation
    tokens: tuple[str, ...]
    each: tuple[str, ...] | None
    comparison: Comparison


def _comparison(registry: ScorerRegistry, name: str) -> Comparison:
    comparison = registry.get(name)
    if comparison is None:
        raise ConfigError(f"comparison {name!r} is not registered (load the dataset with the same registry)")
    return comparison


class CaseScorer:
    """Scores results of one case; built once and reused for every repetition."""

    def __init__(self, case: Case, metrics: tuple[Metric, ...], registry: ScorerRegistry,
                 judge: JudgeAsker | None, case_json: dict[str, Any] | None = None) -> None:
        self.case = case
        case_json = case_json if case_json is not None else case.model_dump(mode="json")
        self.input: dict[str, Any] = case_json["input"]
        self.expectations: list[dict[str, Any]] = case_json["expectations"]
        self.input_sha256 = sha256_json(self.input)
        self.expectations_sha256 = sha256_json(self.expectations)
        self._checks = [_Compiled(e, pointer_tokens(e.path), None if e.each is None else pointer_tokens(e.each),
                                  _comparison(registry, e.comparison)) for e in case.expectations]
        self._metrics = [(m, next(iter(matching_expectation(m, case)), None)) for m in metrics]
        self._ask_judge: AskJudge | None = None if judge is None else partial(judge_check, judge)

    async def score(self, observation: Observation, repetition: int, *, details: bool) -> AttemptRecord:
        """The attempt record for ``observation``."""
        result = observation.result
        status, error_code = ("error", observation.error_code or "invalid_result") if result is None \
            else attempt_status(result)
        valid = result if result is not None and status != "error" else None
        scored = [await self._check(compiled, valid) for compiled in self._checks]
        by_name = {s.check.name: s for s in scored}
        usage = observation.usage if observation.usage is not None else _execution_usage(valid)
        return AttemptRecord(
            id=self.case.id, repetition=repetition, status=status,  # type: ignore[arg-type]
            passed=all(s.check.outcome == "passed" for s in scored), checks=tuple(s.check for s in scored),
            input_sha256=self.input_sha256, expectations_sha256=self.expectations_sha256, error_code=error_code,
            elapsed_seconds=observation.elapsed_seconds, usage=read_usage(usage),
            invocations=invocations(valid) if valid is not None else (),
            metrics={m.name: observe(m, e, by_name[e.name] if e else None) for m, e in self._metrics},
            details={"input": self.input, "expectations": self.expectations, "result": result} if details else None)

    async def _check(self, compiled: _Compiled, result: dict[str, Any] | None) -> Scored:
        name = compiled.expectation.name
        if result is None:
            return Scored(CheckResult(name, "error", "no_valid_result"), ABSENT)
        value = resolve(result, compiled.tokens)
        if value is ABSENT:
            owner = owner_status(result, compiled.tokens)
            if owner == "skipped":
                return Scored(CheckResult(name, "skipped", "owner_skipped"), ABSENT)
            if owner in ("failed", "cancelled"):
                return Scored(CheckResult(name, "error", f"owner_{owner}"), ABSENT)
            if not compiled.expectation.absent_as_null or (owner is not None and owner not in EXECUTED_STATUSES):
                return Scored(CheckResult(name, "missing", "path_absent"), ABSENT)
            value = None
        if compiled.each is not None:
            try:
                value = project(value, compiled.each)
            except ProjectionError as exc:
                return Scored(CheckResult(name, "failed", f"projection_{exc}"), value)
        return Scored(await self._compare(compiled, value), value)

    async def _compare(self, compiled: _Compiled, value: Any) -> CheckResult:
        name = compiled.expectation.name
        check = CheckContext(value, compiled.expectation.expected, self.input, self._ask_judge)
        passed, reason = await compiled.comparison.compare(check)
        if passed is None:
            return CheckResult(name, "error", reason)
        return CheckResult(name, "passed") if passed else CheckResult(name, "failed", "mismatch")


def _execution_usage(result: dict[str, Any] | None) -> Any:
    execution = result.get("execution") if result is not None else None
    return execution.get("usage") if isinstance(execution, dict) else None


class SuiteScorer:
    """One :class:`CaseScorer` per case of a suite, by case id."""

    def __init__(self, suite: SuiteSpec, registry: ScorerRegistry, judge: JudgeAsker | None) -> None:
        self.suite = suite
        self.cases = {case.id: CaseScorer(case, suite.metrics, registry, judge, data)
                      for case, data in zip(suite.cases, suite.case_json, strict=True)}
