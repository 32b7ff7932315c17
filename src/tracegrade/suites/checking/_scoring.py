"""Scoring one attempt: owner-aware check outcomes, attempt status and metric observations."""

from __future__ import annotations

from functools import partial
from typing import Any

from tracegrade.errors import ConfigError
from tracegrade.suites.checking._judge import JudgeAsker, judge_check
from tracegrade.suites.checking._metrics import observe
from tracegrade.suites.checking._owners import attempt_status, invocations, owner_status, read_usage
from tracegrade.suites.checking._records import (
    EXECUTED_STATUSES,
    AttemptRecord,
    CheckResult,
    MetricObservation,
    Observation,
    Scored,
    attempt_record,
)
from tracegrade.suites.reading._columns import CaseColumns, Layout, Shape
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
from tracegrade.suites.reading._dataset import SuiteSpec
from tracegrade.suites.reading._json import ABSENT, pointer_tokens, resolve
from tracegrade.suites.reading._models import Metric
from tracegrade.suites.reading._rules import matching_positions

__all__ = ["CaseScorer", "SuiteScorer"]


class _Compiled:
    """How to check one expectation shape (name, path, each, comparison, absent_as_null), shared by the cases."""

    __slots__ = ("absent_as_null", "comparison", "each", "failed", "made", "name", "passed", "rule", "tokens")

    def __init__(self, shape: Shape, comparison: Comparison, rule: Rule | None) -> None:
        self.name = shape.name
        self.tokens = pointer_tokens(shape.path)
        self.each = None if shape.each is None else pointer_tokens(shape.each)
        self.absent_as_null = shape.absent_as_null
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


Step = tuple[_Compiled, tuple[str, ...], Rule | None]
"""A compiled shape, its pointer tokens, and its rule when the scoring loop applies it directly (no ``each``)."""
MetricAt = tuple[Metric, int | None, bool]
"""A metric, the position of the expectation it measures in a layout (None: none), and whether it is one_of."""


class _Shared:
    """What the cases of one suite share: comparisons, compiled shapes and what each layout checks and measures."""

    def __init__(self, registry: ScorerRegistry, metrics: tuple[Metric, ...], judge: JudgeAsker | None) -> None:
        self.registry = registry
        self.metrics = metrics
        self.ask_judge: AskJudge | None = None if judge is None else partial(judge_check, judge)
        self.comparisons: dict[str, tuple[Comparison, Rule | None]] = {}
        self.compiled: dict[Shape, _Compiled] = {}
        self.layouts: dict[Layout, tuple[tuple[_Compiled, ...], tuple[Step, ...], tuple[MetricAt, ...]]] = {}
        self.observations: dict[tuple[Any, ...], MetricObservation] = {}

    def observed(self, metric: Metric, check: CheckResult, value: Any, gold: Any, one_of: bool) -> MetricObservation:
        """``observe`` of this check, shared between attempts where that is exact.

        Observations are frozen; a classification's is shared when its value and gold are strings,
        integers, booleans or null, whose JSON their type and value fix.
        """
        if one_of or metric.kind != "classification" or type(value) not in _PLAIN or type(gold) not in _PLAIN:
            return observe(metric, Scored(check, value), gold, one_of=one_of)
        key = (metric.name, check.outcome, type(value), value, type(gold), gold)
        found = self.observations.get(key)
        if found is None:
            if len(self.observations) >= 65536:
                self.observations.clear()
            found = self.observations[key] = observe(metric, Scored(check, value), gold)
        return found

    def layout(self, layout: Layout) -> tuple[tuple[_Compiled, ...], tuple[Step, ...], tuple[MetricAt, ...]]:
        """The compiled shapes of ``layout``, their steps, and where each metric finds its expectation in it."""
        found = self.layouts.get(layout)
        if found is None:
            metrics = []
            for metric in self.metrics:
                at = next(iter(matching_positions(metric, layout)), None)
                metrics.append((metric, at, at is not None and layout.shapes[at].comparison == "one_of"))
            compiled = tuple(self._compiled(s) for s in layout.shapes)
            plan = tuple((c, c.tokens, c.rule if c.each is None else None) for c in compiled)
            found = self.layouts[layout] = (compiled, plan, tuple(metrics))
        return found

    def _compiled(self, shape: Shape) -> _Compiled:
        found = self.compiled.get(shape)
        if found is None:
            comparison = self.comparisons.get(shape.comparison)
            if comparison is None:
                made = _comparison(self.registry, shape.comparison)
                rule = made.rule if type(made) is BuiltinComparison else None
                comparison = self.comparisons[shape.comparison] = (made, rule)
            found = self.compiled[shape] = _Compiled(shape, *comparison)
        return found


_PLAIN = frozenset({str, int, bool, type(None)})
"""Types whose values of one type have equal JSON exactly when they are equal."""

_PENDING = object()
"""What :meth:`CaseScorer._check` returns as the result of a check its comparison has still to decide."""


def _comparison(registry: ScorerRegistry, name: str) -> Comparison:
    comparison = registry.get(name)
    if comparison is None:
        raise ConfigError(f"comparison {name!r} is not registered (load the dataset with the same registry)")
    return comparison


class CaseScorer:
    """Scores results of case ``number`` of ``columns``; built once and reused for every repetition."""

    def __init__(self, columns: CaseColumns, number: int, shared: _Shared, digests: tuple[str, str]) -> None:
        self.id = columns.ids[number]
        self.input: dict[str, Any] = columns.inputs[number]
        self._columns, self._number = columns, number
        self.input_sha256, self.expectations_sha256 = digests
        self._compiled, self._plan, self._metrics = shared.layout(columns.layouts[number])
        self._golds = columns.golds[number]
        self._ask_judge = shared.ask_judge
        self._observed = shared.observed
        self._expectations: list[dict[str, Any]] | None = None

    @property
    def expectations(self) -> list[dict[str, Any]]:
        """The case's expectations as JSON, every field spelled out (kept in detail reports)."""
        if self._expectations is None:
            self._expectations = self._columns.expectations_json(self._number)
        return self._expectations

    async def score(self, observation: Observation, repetition: int, *, details: bool) -> AttemptRecord:
        """The attempt record for ``observation``."""
        result = observation.result
        status, error_code = ("error", observation.error_code or "invalid_result") if result is None \
            else attempt_status(result)
        valid = result if result is not None and status != "error" else None
        golds = self._golds
        if valid is None:
            checks = [compiled.of("error", "no_valid_result") for compiled in self._compiled]
            values: list[Any] = [ABSENT] * len(checks)
            passed = not checks
        else:
            checks = []
            values = []
            passed = True
            case_input = self.input
            for (compiled, tokens, rule), expected in zip(self._plan, golds, strict=True):
                value: Any = valid
                for token in tokens:  # resolve() inlined for objects, the common case
                    if type(value) is not dict:
                        value = resolve(valid, tokens)
                        break
                    value = value.get(token, ABSENT)
                if rule is not None and value is not ABSENT:  # most checks: a built-in rule, no each
                    if rule(value, expected, case_input):
                        check = compiled.passed
                    else:
                        check, passed = compiled.failed, False
                else:
                    check, value = self._check(compiled, expected, valid, value)
                    if check is _PENDING:
                        check = await self._compare(compiled, expected, value)
                    if check.outcome != "passed":
                        passed = False
                checks.append(check)
                values.append(value)
        usage = observation.usage if observation.usage is not None else _execution_usage(valid)
        observed = self._observed
        return attempt_record(
            self.id, repetition, status, passed, tuple(checks),  # type: ignore[arg-type]
            self.input_sha256, self.expectations_sha256, error_code, observation.elapsed_seconds,
            read_usage(usage), invocations(valid) if valid is not None else (),
            {m.name: observe(m, None) if at is None else observed(m, checks[at], values[at], golds[at], one_of)
             for m, at, one_of in self._metrics},
            {"input": self.input, "expectations": self.expectations, "result": result} if details else None)

    def _check(self, compiled: _Compiled, expected: Any, result: dict[str, Any], value: Any) -> tuple[Any, Any]:
        """The check result and the value compared (``value``: what the path resolved to in ``result``).

        ``_PENDING`` instead of the result for a comparison that is not built in.
        """
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


def _execution_usage(result: dict[str, Any] | None) -> Any:
    execution = result.get("execution") if result is not None else None
    return execution.get("usage") if isinstance(execution, dict) else None


class SuiteScorer:
    """One :class:`CaseScorer` per case of a suite, by case id."""

    def __init__(self, suite: SuiteSpec, registry: ScorerRegistry, judge: JudgeAsker | None) -> None:
        self.suite = suite
        shared = _Shared(registry, suite.metrics, judge)
        columns = suite.columns
        self.cases = {case_id: CaseScorer(columns, number, shared, digests)
                      for number, (case_id, digests) in enumerate(zip(columns.ids, suite.case_digests, strict=True))}
