"""Two runs paired unit by unit: the delta of a ratio-of-sums score with a paired bootstrap, Wilcoxon, changes.

The core every ``compare`` shares. Each pair contributes a total and a count on each side (a score and
1, or a trajectory's summed node scores and its node count); a side's score is the sum of its totals
over the sum of its counts, so a collection score that weights nodes, not trajectories, is resampled
by trajectory without being redefined.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from tracegrade.stats._arrays import as_pair, check_level
from tracegrade.stats._bootstrap import percentile_bounds, resample_weights
from tracegrade.stats._gate import FEW_PAIRS, TOLERANCE, GateOptions, GateVerdict
from tracegrade.stats._rank_tests import wilcoxon_signed_rank
from tracegrade.stats._records import Interval, TestResult

__all__ = ["PairChange", "PairedComparison", "PairedUnits", "apply_gate", "compare_paired", "pair_changes",
           "paired_ratio_bootstrap"]

@dataclass(frozen=True)
class PairedUnits:
    """The paired units of a comparison: one id, total and count per side and pass flags per pair."""

    ids: Sequence[str]
    baseline: Sequence[float]
    """Each pair's baseline total (its score when counts are 1)."""
    candidate: Sequence[float]
    baseline_counts: Sequence[float] | None = None
    """Values behind each baseline total; all 1 when None."""
    candidate_counts: Sequence[float] | None = None
    baseline_passed: Sequence[bool | None] | None = None
    """Whether each pair passed its threshold on the baseline side (None: unknown)."""
    candidate_passed: Sequence[bool | None] | None = None


class PairedComparison(BaseModel):
    """The paired figures of one comparison, candidate − baseline; each list names pairs by id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int = Field(description="Pairs with a score on both sides.")
    baseline_score: float | None = Field(description="Baseline score over the paired units; null without pairs.")
    candidate_score: float | None = Field(description="Candidate score over the paired units; null without pairs.")
    mean_delta: float | None = Field(description="Candidate score − baseline score; null without pairs.")
    interval: Interval = Field(description="Percentile paired bootstrap interval of mean_delta, resampling pairs.")
    p_value: float | None = Field(description="Two-sided Wilcoxon signed-rank p-value of the per-pair deltas.")
    wilcoxon: TestResult = Field(description="The Wilcoxon test: W, p and the non-zero deltas it used (n).")
    min_delta: float = Field(description="A pair changed only when its delta is beyond this.")
    improved: list[str] = Field(description="Pairs whose delta is above +min_delta.")
    regressed: list[str] = Field(description="Pairs whose delta is below −min_delta.")
    unchanged: list[str] = Field(description="Pairs whose delta is within ±min_delta.")
    newly_failing: list[str] = Field(description="Pairs that passed on the baseline and do not on the candidate.")
    newly_passing: list[str] = Field(description="Pairs that did not pass on the baseline and do on the candidate.")
    resamples: int = Field(description="Bootstrap resamples.")
    seed: int = Field(description="Seed of the bootstrap.")

    @model_serializer(mode="wrap")
    def _identity_first(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """What was compared comes first in every front door's document, then the shared figures."""
        data: dict[str, Any] = handler(self)
        first = [key for key in _LEADING if key in data]
        return {**{key: data[key] for key in first}, **{k: v for k, v in data.items() if k not in first}}


_LEADING = ("format", "baseline", "candidate", "comparable", "allowed_differences", "primary")


class PairChange(BaseModel):
    """One paired unit (a task, a source case): its score on each side, the delta and how it changed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    outcome: Literal["improved", "regressed", "unchanged"]
    baseline_score: float
    candidate_score: float
    delta: float


def pair_changes(paired: PairedComparison, scores: Iterable[tuple[str, float, float]]) -> list[PairChange]:
    """Each ``(id, baseline, candidate)`` with its delta and outcome in ``paired``, biggest regression first."""
    changed = {**dict.fromkeys(paired.improved, "improved"), **dict.fromkeys(paired.regressed, "regressed")}
    pairs = [PairChange(id=i, outcome=changed.get(i, "unchanged"), baseline_score=b, candidate_score=c, delta=c - b)
             for i, b, c in scores]
    return sorted(pairs, key=lambda p: (p.delta, p.id))


def _counts(values: Sequence[float] | None, size: int, name: str) -> npt.NDArray[np.float64]:
    if values is None:
        return np.ones(size, dtype=np.float64)
    array = np.asarray(values, dtype=np.float64)
    if array.shape != (size,) or not (array > 0).all():
        raise ValueError(f"{name} must hold one positive count per pair")
    return array


def paired_ratio_bootstrap(
    units: PairedUnits, *, resamples: int = 2000, level: float = 0.95, seed: int = 0
) -> Interval:
    """``Σcandidate/Σcandidate_counts − Σbaseline/Σbaseline_counts`` with a percentile bootstrap over pairs.

    Each resample draws the pairs with replacement, exactly as :func:`~tracegrade.stats.paired_bootstrap_ci`
    draws them, so with all counts 1 the two agree. Bounds are None with fewer than two pairs.

    Raises:
        ValueError: the sides differ in length, a value is not finite, a count is not positive, or
            ``level`` / ``resamples`` is out of range.
    """
    check_level(level, resamples)
    cand, base = as_pair(units.candidate, units.baseline, ("candidate", "baseline"))
    cand_n = _counts(units.candidate_counts, cand.size, "candidate_counts")
    base_n = _counts(units.baseline_counts, base.size, "baseline_counts")
    if not cand.size:
        return Interval(None, None, None, 0, level)
    estimate = float(cand.sum() / cand_n.sum() - base.sum() / base_n.sum())
    if cand.size < 2:
        return Interval(estimate, None, None, 1, level)
    columns = np.column_stack([cand, cand_n, base, base_n])
    drawn = _resampled_sums(columns, resamples=resamples, seed=seed)
    deltas = drawn[:, 0] / drawn[:, 1] - drawn[:, 2] / drawn[:, 3]
    low, high = percentile_bounds(deltas, level)
    return Interval(estimate, low, high, int(cand.size), level)


def _resampled_sums(columns: npt.NDArray[np.float64], *, resamples: int, seed: int) -> npt.NDArray[np.float64]:
    """Column sums of each bootstrap resample of the rows (the draws of the single-measure bootstrap)."""
    sums = np.empty((resamples, columns.shape[1]), dtype=np.float64)
    for start, stop, weights in resample_weights(columns.shape[0], resamples, seed):
        sums[start:stop] = weights @ columns
    return sums


def compare_paired(
    units: PairedUnits, *, min_delta: float = 0.0, resamples: int = 2000, level: float = 0.95, seed: int = 0
) -> PairedComparison:
    """Every paired figure: scores, delta with its interval, Wilcoxon, changed pairs, new failures and passes.

    A pair's own delta is its candidate total/count − its baseline total/count; it counts as improved
    or regressed only beyond ``min_delta``.

    Raises:
        ValueError: as :func:`paired_ratio_bootstrap`, or ``min_delta`` is negative or not finite (an infinite
            or NaN bar would let no pair change and no gate fire).
    """
    if not math.isfinite(min_delta) or min_delta < 0:
        raise ValueError(f"min_delta must be a finite number at least 0, got {min_delta}")
    interval = paired_ratio_bootstrap(units, resamples=resamples, level=level, seed=seed)
    size = len(units.ids)
    cand = np.asarray(units.candidate, dtype=np.float64) / _counts(units.candidate_counts, size, "candidate_counts")
    base = np.asarray(units.baseline, dtype=np.float64) / _counts(units.baseline_counts, size, "baseline_counts")
    test = wilcoxon_signed_rank(_rounded(cand), _rounded(base)) if size else TestResult(None, None, 0)
    deltas = cand - base
    bar = min_delta + TOLERANCE
    ids = list(units.ids)
    new_failures, new_passes = _threshold_changes(units)
    return PairedComparison(
        n=size,
        baseline_score=_ratio(units.baseline, units.baseline_counts),
        candidate_score=_ratio(units.candidate, units.candidate_counts),
        mean_delta=interval.estimate,
        interval=interval,
        p_value=test.p_value,
        wilcoxon=test,
        min_delta=min_delta,
        improved=[i for i, d in zip(ids, deltas, strict=True) if d > bar],
        regressed=[i for i, d in zip(ids, deltas, strict=True) if d < -bar],
        unchanged=[i for i, d in zip(ids, deltas, strict=True) if abs(d) <= bar],
        newly_failing=new_failures,
        newly_passing=new_passes,
        resamples=resamples,
        seed=seed,
    )


def _rounded(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Values rounded far below any score's resolution, so that rounding noise is not a difference."""
    return np.round(values, 12)


def _ratio(totals: Sequence[float], counts: Sequence[float] | None) -> float | None:
    if not len(totals):
        return None
    return float(np.sum(totals) / (np.sum(counts) if counts is not None else len(totals)))


def _threshold_changes(units: PairedUnits) -> tuple[list[str], list[str]]:
    if units.baseline_passed is None or units.candidate_passed is None:
        return [], []
    flags = list(zip(units.ids, units.baseline_passed, units.candidate_passed, strict=True))
    return ([i for i, b, c in flags if b is True and c is False], [i for i, b, c in flags if b is False and c is True])


def signed_places(places: int) -> Callable[[float], str]:
    """A formatter of signed figures with ``places`` decimals (``+0.1234``), as a comparison's table shows them."""
    return lambda value: f"{value:+.{places}f}"


_FOUR_PLACES = signed_places(4)


def apply_gate(comparison: PairedComparison, options: GateOptions,
               figure: Callable[[float], str] = _FOUR_PLACES) -> GateVerdict:
    """The verdict of the rules ``options`` asks for on ``comparison``, its figures written by ``figure``."""
    checked: list[str] = []
    fired: list[str] = []
    if options.fail_on_regression:
        checked.append("fail_on_regression")
        fired.extend(_regression(comparison, options.min_delta, figure))
    if options.fail_on_new_failures:
        checked.append("fail_on_new_failures")
        if comparison.newly_failing:
            names = ", ".join(comparison.newly_failing[:3]) + (" …" if len(comparison.newly_failing) > 3 else "")
            fired.append(f"fail_on_new_failures: {len(comparison.newly_failing)} newly failing ({names})")
    return GateVerdict(exit_code=1 if fired else 0, fired=fired, checked=checked,
                       warnings=_few_pairs(comparison, fired, figure) if checked else [])


def _few_pairs(comparison: PairedComparison, fired: list[str], figure: Callable[[float], str]) -> list[str]:
    """A warning when too few pairs were scored for the interval, and so the gate, to mean much."""
    if comparison.n >= FEW_PAIRS:
        return []
    interval = comparison.interval
    shown = ("no interval" if interval.low is None or interval.high is None
             else f"{interval.level:.0%} interval [{figure(interval.low)}, {figure(interval.high)}]")
    verdict = "fired" if fired else "did not fire"
    return [f"only {comparison.n} scored pair(s) ({shown}): under {FEW_PAIRS} pairs the interval means little, "
            f"and the gate {verdict} on so few"]


def _regression(comparison: PairedComparison, min_delta: float, figure: Callable[[float], str]) -> list[str]:
    interval = comparison.interval
    if interval.estimate is not None and interval.estimate >= -min_delta - TOLERANCE:
        return []
    if interval.estimate is None or interval.high is None:
        return [f"fail_on_regression: undecidable with {comparison.n} scored pair(s) (an interval needs 2)"]
    if interval.high < 0:
        return [
            f"fail_on_regression: delta {figure(interval.estimate)} below -min_delta ({min_delta:g}) and the "
            f"{interval.level:.0%} interval's upper bound {figure(interval.high)} < 0 (n={interval.n})"
        ]
    return []
