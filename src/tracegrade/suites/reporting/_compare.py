"""Compare two reports of the same dataset: per-attempt changes and bootstrap deltas over source cases."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final, Literal

from pydantic import Field

from tracegrade.errors import ConfigError
from tracegrade.stats import GateOptions, GateVerdict, Interval, PairChange, PairedComparison, PairedUnits, pair_changes
from tracegrade.suites.checking._records import FAILED_STATUSES, AttemptRecord, Record
from tracegrade.suites.reporting._params import IntervalParameters
from tracegrade.suites.reporting._report import DatasetIdentity, ReportMode, SuiteReport, SuiteSection
from tracegrade.suites.reporting._summaries import LatencySummary, latency_summary

__all__ = [
    "COMPARE_FORMAT",
    "AttemptChange",
    "ChangeCounts",
    "ComparedModes",
    "ComparedReport",
    "ComparedSuite",
    "ComparisonReport",
    "Delta",
    "LatencyCompared",
    "LatencyNotCompared",
    "attempt_change",
    "compare_reports",
]

COMPARE_FORMAT: Final = "tracegrade.suite-compare/1"
_CHECK_RANK = {"passed": 2, "failed": 1}
_SAME = ("fingerprint", "target_workflow", "target_flow", "target_step", "scorers", "metric_specs", "repeat")
Change = Literal["improved", "regressed", "mixed", "unchanged"]


class ChangeCounts(Record):
    """How many attempts went each way."""

    improved: int
    regressed: int
    mixed: int
    unchanged: int


class Delta(Record):
    """One measure on both sides, and the paired bootstrap interval of candidate − baseline."""

    candidate: float | None
    baseline: float | None
    delta: Interval


class LatencyNotCompared(Record):
    """Latency left out of the comparison, and why."""

    compared: Literal[False] = False
    reason: str


class LatencyCompared(Record):
    """Attempt latency on both sides."""

    compared: Literal[True] = True
    candidate: LatencySummary
    baseline: LatencySummary


class AttemptChange(Record):
    """How one attempt changed, and the checks that went up and down."""

    id: str
    repetition: int
    change: Change
    checks_up: list[str]
    checks_down: list[str]


class ComparedSuite(Record):
    """One suite of the comparison."""

    suite: str
    attempt_count: int
    source_case_count: int
    changes: ChangeCounts
    deltas: dict[str, Delta]
    """By measure: the rates, then each metric's ``metric:<name>:accuracy`` and ``metric:<name>:coverage``."""
    latency: LatencyCompared | LatencyNotCompared
    attempts: list[AttemptChange]


class ComparedModes(Record):
    """The mode of each side (``run`` or ``replay``)."""

    candidate: ReportMode
    baseline: ReportMode


class ComparedReport(Record):
    """One side of the comparison."""

    path: str | None
    """The report file, when the comparison was made from files."""
    mode: ReportMode


class ComparisonReport(PairedComparison):
    """What ``comparison.json`` holds: the shape every ``compare`` shares, then the per-suite details.

    The shared figures are over source cases; the primary score is ``case_pass_rate``.
    """

    format: Literal["tracegrade.suite-compare/1"] = COMPARE_FORMAT
    baseline: ComparedReport
    candidate: ComparedReport
    comparable: bool = True
    """Always true here: reports of different datasets, suites, gold or attempts are refused."""
    allowed_differences: list[str] = Field(default_factory=list)
    primary: Literal["case_pass_rate"] = "case_pass_rate"
    only_in_baseline: list[str] = Field(default_factory=list)
    """Always empty: both reports must hold the same attempts."""
    only_in_candidate: list[str] = Field(default_factory=list)
    gate: GateVerdict
    pairs: list[PairChange]
    """Every source case (``suite/case``) with its pass rate over its repetitions, biggest regression first."""
    dataset: DatasetIdentity
    parameters: IntervalParameters
    modes: ComparedModes
    suites: list[ComparedSuite]


def _refuse(message: str) -> ConfigError:
    return ConfigError(f"reports are not comparable: {message}", code="compare_incompatible")


def _compatible(candidate: SuiteReport, baseline: SuiteReport) -> None:
    if candidate.dataset != baseline.dataset:
        raise _refuse("dataset name or revision differs")
    if [s.suite for s in candidate.suites] != [s.suite for s in baseline.suites]:
        raise _refuse("suites differ")
    for cand, base in zip(candidate.suites, baseline.suites, strict=True):
        for key in _SAME:
            if getattr(cand, key) != getattr(base, key):
                raise _refuse(f"suite {cand.suite!r}: {key} differs")
        keys = [(a.id, a.repetition, a.input_sha256, a.expectations_sha256) for a in cand.attempts]
        if keys != [(a.id, a.repetition, a.input_sha256, a.expectations_sha256) for a in base.attempts]:
            raise _refuse(f"suite {cand.suite!r}: attempts or their saved inputs/expectations differ")


def _status_rank(status: str) -> int:
    return 0 if status in FAILED_STATUSES else 1


def attempt_change(candidate: AttemptRecord, baseline: AttemptRecord) -> tuple[Change, list[str], list[str]]:
    """``improved`` / ``regressed`` / ``mixed`` / ``unchanged`` and the checks that went up and down."""
    before = {c.name: _CHECK_RANK.get(c.outcome, 0) for c in baseline.checks}
    up = [c.name for c in candidate.checks if _CHECK_RANK.get(c.outcome, 0) > before.get(c.name, 0)]
    down = [c.name for c in candidate.checks if _CHECK_RANK.get(c.outcome, 0) < before.get(c.name, 0)]
    status = _status_rank(candidate.status) - _status_rank(baseline.status)
    rose, fell = bool(up) or status > 0, bool(down) or status < 0
    change: Change = "mixed" if rose and fell else "improved" if rose else "regressed" if fell else "unchanged"
    return change, up, down


Measure = Callable[[AttemptRecord], list[float]]

_MEASURES: dict[str, Measure] = {
    "check_pass_rate": lambda a: [1.0 if c.outcome == "passed" else 0.0 for c in a.checks],
    "check_coverage": lambda a: [1.0 if c.outcome in ("passed", "failed") else 0.0 for c in a.checks],
    "case_pass_rate": lambda a: [1.0 if a.passed else 0.0],
    "failure_rate": lambda a: [1.0 if a.status in FAILED_STATUSES else 0.0],
    "review_rate": lambda a: [1.0 if a.status == "needs_review" else 0.0],
}


def _deltas(cand: Sequence[AttemptRecord], base: Sequence[AttemptRecord], measures: dict[str, Measure],
            params: IntervalParameters) -> dict[str, Delta]:
    """Per measure: candidate and baseline means and the paired bootstrap interval of the difference."""
    from tracegrade.stats import PairedSample, paired_bootstrap_many

    samples: dict[str, PairedSample] = {}
    means: dict[str, tuple[float | None, float | None]] = {}
    for name, measure in measures.items():
        x: list[float] = []
        y: list[float] = []
        groups: list[str] = []
        for a, b in zip(cand, base, strict=True):
            values_a, values_b = measure(a), measure(b)
            x.extend(values_a)
            y.extend(values_b)
            groups.extend([a.id] * len(values_a))
        samples[name] = (x, y, groups)
        means[name] = (sum(x) / len(x), sum(y) / len(y)) if x else (None, None)
    intervals = paired_bootstrap_many(samples, resamples=params.resamples, level=params.level, seed=params.seed)
    return {name: Delta(candidate=means[name][0], baseline=means[name][1], delta=intervals[name]) for name in samples}


def _metric_measures(section: SuiteSection) -> dict[str, Measure]:
    return {f"metric:{spec.name}:{what}": _metric_measure(spec.name, what)
            for spec in section.metric_specs for what in ("accuracy", "coverage")}


def _metric_measure(name: str, what: str) -> Measure:
    def measure(attempt: AttemptRecord) -> list[float]:
        observation = attempt.metrics[name]
        if observation.state == "excluded":
            return []
        hit = observation.correct if what == "accuracy" else observation.state == "observed"
        return [1.0 if hit else 0.0]

    return measure


def _suite(cand: SuiteSection, base: SuiteSection, params: IntervalParameters, replay: bool) -> ComparedSuite:
    changes = [attempt_change(a, b) for a, b in zip(cand.attempts, base.attempts, strict=True)]
    measures = {**_MEASURES, **_metric_measures(cand)}
    latency: LatencyCompared | LatencyNotCompared = LatencyNotCompared(reason="a side is a replay") if replay else \
        LatencyCompared(candidate=latency_summary([a.elapsed_seconds for a in cand.attempts]),
                        baseline=latency_summary([a.elapsed_seconds for a in base.attempts]))
    counted = Counter(change for change, _, _ in changes)
    return ComparedSuite(
        suite=cand.suite, attempt_count=len(changes), source_case_count=len({a.id for a in cand.attempts}),
        changes=ChangeCounts(improved=counted["improved"], regressed=counted["regressed"], mixed=counted["mixed"],
                             unchanged=counted["unchanged"]),
        deltas=_deltas(cand.attempts, base.attempts, measures, params),
        latency=latency,
        attempts=[AttemptChange(id=a.id, repetition=a.repetition, change=change, checks_up=up, checks_down=down)
                  for a, (change, up, down) in zip(cand.attempts, changes, strict=True)],
    )


def compare_reports(candidate: SuiteReport, baseline: SuiteReport, params: IntervalParameters | None = None, *,
                    gate: GateOptions | None = None, paths: tuple[str, str] | None = None) -> ComparisonReport:
    """Compare two reports; saved aggregates are ignored and recomputed from the attempt records.

    ``paths`` names the baseline's and the candidate's files, in that order, for the record.

    Raises:
        ConfigError: when the reports are not of the same dataset, suites, gold, targets, scorers,
            metrics and attempts.
    """
    from tracegrade.stats import apply_gate, compare_paired

    params, gate = params or IntervalParameters(), gate or GateOptions()
    _compatible(candidate, baseline)
    replay = "replay" in (candidate.mode, baseline.mode)
    suites = [_suite(c, b, params, replay) for c, b in zip(candidate.suites, baseline.suites, strict=True)]
    units = _case_units(candidate, baseline)
    paired = compare_paired(units, min_delta=gate.min_delta, resamples=params.resamples, level=params.level,
                            seed=params.seed)
    base_path, cand_path = paths or (None, None)
    return ComparisonReport(
        **dict(paired),
        baseline=ComparedReport(path=base_path, mode=baseline.mode),
        candidate=ComparedReport(path=cand_path, mode=candidate.mode),
        gate=apply_gate(paired, gate, lambda value: f"{value:+.1%}"), pairs=_case_pairs(units, paired),
        dataset=candidate.dataset, parameters=params,
        modes=ComparedModes(candidate=candidate.mode, baseline=baseline.mode), suites=suites,
    )


def _case_units(candidate: SuiteReport, baseline: SuiteReport) -> PairedUnits:
    """One unit per source case: passed attempts over attempts on each side; a case passes when every attempt does."""
    totals: dict[str, list[float]] = {}
    for cand_suite, base_suite in zip(candidate.suites, baseline.suites, strict=True):
        for cand, base in zip(cand_suite.attempts, base_suite.attempts, strict=True):
            row = totals.setdefault(f"{cand_suite.suite}/{cand.id}", [0.0, 0.0, 0.0])
            row[0] += base.passed
            row[1] += cand.passed
            row[2] += 1
    ids = list(totals)
    return PairedUnits(
        ids=ids, baseline=[totals[i][0] for i in ids], candidate=[totals[i][1] for i in ids],
        baseline_counts=[totals[i][2] for i in ids], candidate_counts=[totals[i][2] for i in ids],
        baseline_passed=[totals[i][0] == totals[i][2] for i in ids],
        candidate_passed=[totals[i][1] == totals[i][2] for i in ids],
    )


def _case_pairs(units: PairedUnits, paired: PairedComparison) -> list[PairChange]:
    assert units.baseline_counts is not None
    return pair_changes(paired, ((i, b / n, c / n) for i, b, c, n in
                                 zip(units.ids, units.baseline, units.candidate, units.baseline_counts, strict=True)))
