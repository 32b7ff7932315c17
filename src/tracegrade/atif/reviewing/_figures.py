"""The agreement figures the review page shows, with words on whether each can be trusted yet.

They are computed by the code ``tracegrade agree`` runs (``measure_agreement``), on one reviewer's labels.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from tracegrade.atif.agreement._agree import measure_agreement
from tracegrade.atif.agreement._labels import Label, of_reviewer
from tracegrade.atif.agreement._records import AgreementReport, Estimate
from tracegrade.atif.agreement._report import ONE_SIDED, _kappa_note
from tracegrade.atif.agreement._reviewers import measure_reviewers
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import InputError

__all__ = ["FEW_PAIRS", "TOO_WIDE", "WIDE", "judge_rows", "order_counts", "review_figures", "trust"]

FEW_PAIRS = 10
"""Below this many pairs no figure is called trustworthy, however narrow its bootstrap interval (a handful of
pairs often resamples to one value)."""
WIDE = 0.25
"""An interval wider than this is read as a direction only."""
TOO_WIDE = 0.5
"""An interval wider than this is too wide to trust."""


def trust(estimate: Estimate, one_sided: str | None = None) -> str:
    """Whether ``estimate`` can be trusted yet, in words.

    ``one_sided`` is agree's note on a kappa that is 0 by construction (one side gave a single answer).
    """
    if estimate.value is None:
        return f"not computable yet ({estimate.reason or 'no value'})"
    if one_sided is not None:
        return f"0 by construction ({one_sided.removeprefix(ONE_SIDED)}): read the agreement share instead"
    if estimate.n < FEW_PAIRS:
        return f"too few pairs to trust ({estimate.n}, under {FEW_PAIRS}): keep labelling"
    if estimate.low is None or estimate.high is None:
        return "no interval yet: it needs labels from at least two trajectories"
    width = estimate.high - estimate.low
    if width > TOO_WIDE:
        return f"too wide to trust (interval {width:.2f} wide): keep labelling"
    if width > WIDE:
        return f"still wide (interval {width:.2f} wide): read it as a direction only"
    return f"narrow enough to read (interval {width:.2f} wide)"


def _row(measure: str, estimate: Estimate, one_sided: str | None = None) -> dict[str, Any]:
    return {"measure": measure, "value": estimate.value, "low": estimate.low, "high": estimate.high, "n": estimate.n,
            "units": estimate.units, "reason": estimate.reason, "trust": trust(estimate, one_sided)}


def judge_rows(report: AgreementReport) -> list[dict[str, Any]]:
    """The step-level measures of ``report`` the page shows, in its order."""
    step = report.step
    rows = [
        _row("pass/fail kappa", step.pass_fail.kappa, _kappa_note(step.pass_fail.matrix, step.pass_fail.labels)),
        _row("pass/fail agreement", step.pass_fail.agreement),
        _row("score Spearman rho", step.scores.spearman),
    ]
    if step.categories is not None:
        categories = step.categories
        rows += [_row("category agreement", categories.agreement),
                 _row("category kappa", categories.kappa, _kappa_note(categories.matrix, categories.labels))]
    return [*rows, _row("decisive step = judge's lowest", report.localisation.exact),
            _row("decisive step within ±1", report.localisation.within_1)]


def order_counts(labels: Sequence[Label]) -> dict[str, int]:
    """How many of ``labels`` were taken in each queue order (``extra.order``; ``unrecorded`` when absent)."""
    counts: Counter[str] = Counter()
    for label in labels:
        order = (label.extra or {}).get("order")
        counts[str(order) if isinstance(order, str) else "unrecorded"] += 1
    return dict(sorted(counts.items()))


def review_figures(results: EvaluationResults, labels: Sequence[Label], reviewer: str, *, labels_file: str,
                   resamples: int = 2000, level: float = 0.95, seed: int = 0) -> dict[str, Any]:
    """The reviewer's agreement with the judge, and each other reviewer's with the judge and with this one.

    The rows with the judge are what ``tracegrade agree --reviewer NAME`` reports.
    """
    mine = of_reviewer(labels, reviewer)
    figures: dict[str, Any] = {"reviewer": reviewer, "labels": len(mine), "level": level, "resamples": resamples,
                               "seed": seed, "orders": order_counts(mine), "judge": None, "others": [], "error": None}
    try:
        if mine:
            figures["judge"] = _judge_figures(results, mine, labels_file, resamples, level, seed)
        for other in sorted({label.reviewer for label in labels if label.reviewer not in (None, reviewer)}):
            assert other is not None
            theirs = of_reviewer(labels, other)
            between = measure_reviewers(results, (reviewer, mine), (other, theirs), resamples=resamples,
                                        level=level, seed=seed)
            figures["others"].append({
                "reviewer": other, "labels": len(theirs),
                "judge": _judge_figures(results, theirs, labels_file, resamples, level, seed),
                "common_steps": between.common_steps,
                "between": [_row("pass/fail kappa", between.pass_fail_kappa),
                            _row("pass/fail agreement", between.pass_fail_share),
                            _row("score Spearman rho", between.spearman),
                            _row("category agreement", between.category_share),
                            _row("category kappa", between.category_kappa),
                            _row("same decisive step", between.decisive_exact)],
            })
    except InputError as exc:  # a hand-written line the figures cannot use (two labels of one step)
        figures["error"] = exc.message
    return figures


def _judge_figures(results: EvaluationResults, labels: Sequence[Label], labels_file: str, resamples: int,
                   level: float, seed: int) -> dict[str, Any]:
    report = measure_agreement(results, labels, labels_file=labels_file, resamples=resamples, level=level, seed=seed)
    return {"matched": report.matched, "unmatched": len(report.unmatched), "excluded": len(report.excluded),
            "rows": judge_rows(report)}
