"""Failure localisation: how often the reviewer's decisive step is the judge's lowest-scoring step.

This is the step-level measure published for the Who&When failure-attribution benchmark: per
labelled trajectory, the judge "points at" its lowest-scoring step (the earliest one on a tie) and
the pointer is right when it is the decisive step (exact), or close to it (within 1 and 3 steps).
"""

from __future__ import annotations

from collections.abc import Sequence

from tracegrade import stats
from tracegrade.atif.agreement._records import Estimate, LabelIssue, Localisation, LocalisationRow, Match
from tracegrade.atif.scoring._records import NodeResult, StepResult, StepStatus
from tracegrade.errors import InputError

__all__ = ["judge_lowest_step", "localisation", "share_estimate"]

TOLERANCES = {"exact": 0, "within_1": 1, "within_3": 3}


def judge_lowest_step(node: NodeResult) -> StepResult | None:
    """The node's scored step with the lowest score (the earliest on a tie); None when none is scored."""
    scored = [step for step in node.steps if step.status is StepStatus.SCORED and step.score is not None]
    return min(scored, key=lambda step: (step.score, step.index)) if scored else None


def localisation(matches: Sequence[Match], excluded: list[LabelIssue], *, level: float, resamples: int,
                 seed: int) -> Localisation:
    """Localisation shares over the trajectories with a decisive step label.

    Raises:
        InputError: a trajectory has more than one decisive step label.
    """
    rows: list[LocalisationRow] = []
    decisive: dict[str, int] = {}
    for match in matches:
        if not match.label.decisive or match.step is None:
            continue
        if match.node.node_id in decisive:
            raise InputError(
                f"labels lines {decisive[match.node.node_id]} and {match.label.line} both mark a "
                f"decisive step of {match.node.node_id}"
            )
        decisive[match.node.node_id] = match.label.line
        lowest = judge_lowest_step(match.node)
        if lowest is None or lowest.score is None:
            excluded.append(
                LabelIssue(
                    line=match.label.line, target=match.label.target(), reason="judge_no_score", measure="localisation"
                )
            )
            continue
        rows.append(
            LocalisationRow(node_id=match.node.node_id, line=match.label.line, decisive_step=match.step.index,
                            judge_lowest_step=lowest.index, judge_lowest_score=lowest.score,
                            distance=abs(lowest.index - match.step.index))
        )
    shares = {
        name: share_estimate([row.distance <= tolerance for row in rows], level, resamples, seed)
        for name, tolerance in TOLERANCES.items()
    }
    return Localisation(trajectories=len(rows), rows=rows, **shares)


def share_estimate(hits: list[bool], level: float, resamples: int, seed: int,
                   empty: str = "no labelled trajectory with a decisive step and a judge score") -> Estimate:
    """The share of hits with its bootstrap interval; null with the reason ``empty`` when there is nothing to count."""
    interval = stats.bootstrap_mean_ci([float(hit) for hit in hits], resamples=resamples, level=level, seed=seed)
    reason = empty if not hits else None
    return Estimate(value=interval.estimate, low=interval.low, high=interval.high, n=len(hits), units=len(hits),
                    resamples_used=resamples if len(hits) >= 2 else 0, reason=reason)
