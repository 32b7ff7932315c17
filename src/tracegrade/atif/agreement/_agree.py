"""Agreement of a finished run with human labels: pure maths over results and label records.

Every measure comes with the number of pairs behind it and a percentile bootstrap interval that
resamples whole trajectories (steps of one trajectory are not independent). Labels that name
nothing in the run are listed as unmatched; labels whose step or trajectory has no judge verdict
are listed as excluded from that measure.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tracegrade import stats
from tracegrade.atif.agreement._labels import LABEL_CATEGORIES, Label, names_step
from tracegrade.atif.agreement._localise import localisation
from tracegrade.atif.agreement._maths import Bootstrap, Statistic, kendall_tau_b, label_agreement, spearman_rho
from tracegrade.atif.agreement._records import (
    AgreementReport,
    CategoryAgreement,
    LabelIssue,
    LevelAgreement,
    Match,
    PassFailAgreement,
    ScoreAgreement,
)
from tracegrade.atif.scoring._records import CategorizationStatus, NodeResult, StepResult, StepStatus
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import InputError

__all__ = ["match_labels", "measure_agreement"]

UNCATEGORIZED = "uncategorized"
_VERDICTS = ("failed", "passed")


@dataclass(frozen=True, slots=True)
class _Pairs:
    """Reviewer and judge values of one measure, with the trajectory of each pair."""

    human: list[Hashable]
    judge: list[Hashable]
    units: list[str]


def measure_agreement(results: EvaluationResults, labels: Sequence[Label], *, labels_file: str, resamples: int = 2000,
                      level: float = 0.95, seed: int = 0) -> AgreementReport:
    """Compare ``results`` with ``labels``.

    Raises:
        InputError: two labels name the same step or trajectory, or a trajectory has two decisive steps.
    """
    matches, unmatched = match_labels(results, labels)
    failure = results.parameters.failure_threshold
    completion = results.parameters.completion_threshold
    excluded: list[LabelIssue] = []
    boot = Bootstrap(resamples, level, seed)
    steps = [m for m in matches if m.step is not None]
    roots = [m for m in matches if m.step is None]
    return AgreementReport(
        job_id=results.job_id,
        labels_file=labels_file,
        labels=len(labels),
        matched=len(matches),
        failure_threshold=failure,
        completion_threshold=completion,
        resamples=resamples,
        level=level,
        seed=seed,
        step=LevelAgreement(
            labels=len(steps),
            scores=_scores(steps, "step", excluded, boot),
            pass_fail=_pass_fail(steps, "step", f"step score < failure_threshold {failure:g}", excluded, boot),
            categories=_categories(steps, excluded, boot),
        ),
        trajectory=LevelAgreement(
            labels=len(roots),
            scores=_scores(roots, "trajectory", excluded, boot),
            pass_fail=_pass_fail(roots, "trajectory", f"not passed (aggregate < completion_threshold {completion:g} or "
                                 "incomplete)", excluded, boot),
        ),
        localisation=localisation(steps, excluded, level=level, resamples=resamples, seed=seed),
        unmatched=unmatched,
        excluded=excluded,
    )


def match_labels(results: EvaluationResults, labels: Sequence[Label]) -> tuple[list[Match], list[LabelIssue]]:
    """Find what each label names; labels naming nothing are returned as issues.

    Raises:
        InputError: two labels name the same step or trajectory.
    """
    index = _NodeIndex(results.nodes)
    matches: list[Match] = []
    unmatched: list[LabelIssue] = []
    seen: dict[tuple[str, int | None], Label] = {}
    for label in labels:
        found = index.find(label)
        if isinstance(found, str):
            unmatched.append(LabelIssue(line=label.line, target=label.target(), reason=found))
            continue
        node, step = found
        key = (node.node_id, None if step is None else step.index)
        if key in seen:
            first = seen[key]
            hint = (f" (reviewers {first.reviewer!r} and {label.reviewer!r}: choose one with --reviewer)"
                    if first.reviewer != label.reviewer else "")
            raise InputError(f"labels lines {first.line} and {label.line} name the same "
                             f"{'step' if step else 'trajectory'} ({label.target()}){hint}")
        seen[key] = label
        matches.append(Match(label, node, step))
    return matches, unmatched


class _NodeIndex:
    def __init__(self, nodes: Sequence[NodeResult]) -> None:
        self._by: dict[str, dict[str, list[NodeResult]]] = {"node_id": {}, "trajectory_id": {}, "session_id": {}}
        for node in nodes:
            for name, table in self._by.items():
                value = getattr(node, name)
                if value is not None:
                    table.setdefault(value, []).append(node)

    def find(self, label: Label) -> tuple[NodeResult, StepResult | None] | str:
        candidates: list[NodeResult] | None = None
        for name, value in label._ids().items():
            found = self._by[name].get(value, [])
            candidates = found if candidates is None else [n for n in candidates if n in found]
        if not candidates:
            return "no_trajectory"
        if len(candidates) > 1:
            return "ambiguous_trajectory"
        node = candidates[0]
        if not label.is_step:
            return node, None
        for step in node.steps:
            if names_step(label, index=step.index, step_id=step.step_id, segment=step.segment):
                return node, step
        return "no_step"


def judge_step_category(step: StepResult) -> str | None:
    """The judge's category of a scored step: ``none`` when not flagged, None when categorisation failed."""
    if step.status is not StepStatus.SCORED:
        return None
    if not step.failure_candidate:
        return "none"
    if step.categorization_status in (CategorizationStatus.CATEGORIZED, CategorizationStatus.ABSTAINED):
        return step.category
    if step.categorization_status is CategorizationStatus.UNCATEGORIZED:
        return UNCATEGORIZED
    return None


def _judge_score(match: Match) -> float | None:
    if match.step is not None:
        return match.step.score if match.step.status is StepStatus.SCORED else None
    return match.node.aggregate


def _judge_failed(match: Match) -> bool | None:
    if match.step is not None:
        return match.step.failure_candidate if match.step.status is StepStatus.SCORED else None
    return None if match.node.passed is None else not match.node.passed


def _collect(matches: Sequence[Match], measure: str, human: Callable[[Label], Hashable | None],
             judge: Callable[[Match], Hashable | None], reason: str, excluded: list[LabelIssue]) -> _Pairs:
    pairs = _Pairs([], [], [])
    for match in matches:
        wanted = human(match.label)
        if wanted is None:
            continue
        got = judge(match)
        if got is None:
            excluded.append(LabelIssue(line=match.label.line, target=match.label.target(), reason=reason,
                                       measure=measure))
            continue
        pairs.human.append(wanted)
        pairs.judge.append(got)
        pairs.units.append(match.node.node_id)
    return pairs


def _scores(matches: Sequence[Match], level: str, excluded: list[LabelIssue], boot: Bootstrap) -> ScoreAgreement:
    pairs = _collect(matches, f"{level}.scores", lambda label: label.score, _judge_score, "judge_no_score", excluded)
    human = np.asarray(pairs.human, dtype=np.float64)
    judge = np.asarray(pairs.judge, dtype=np.float64)
    rho, tau = stats.spearman(human, judge), stats.kendall_tau(human, judge)
    return ScoreAgreement(n=len(pairs.units),
                          spearman=boot.estimate(pairs.units, _correlation(spearman_rho, human, judge), whole=rho),
                          kendall=boot.estimate(pairs.units, _correlation(kendall_tau_b, human, judge), whole=tau))


def _pass_fail(matches: Sequence[Match], level: str, rule: str, excluded: list[LabelIssue],
               boot: Bootstrap) -> PassFailAgreement:
    measure = f"{level}.pass_fail"
    pairs = _collect(matches, measure, lambda label: label.failed, _judge_failed, "judge_no_verdict", excluded)
    human = [_VERDICTS[0] if failed else _VERDICTS[1] for failed in pairs.human]
    judge = [_VERDICTS[0] if failed else _VERDICTS[1] for failed in pairs.judge]
    agree, kappa = label_agreement(human, judge, _VERDICTS, pairs.units, boot)
    matrix = stats.confusion_matrix(human, judge, labels=_VERDICTS)
    return PassFailAgreement(
        n=len(human), judge_rule=rule, matrix=[list(row) for row in matrix.counts], agreement=agree, kappa=kappa
    )


def _categories(matches: Sequence[Match], excluded: list[LabelIssue], boot: Bootstrap) -> CategoryAgreement:
    pairs = _collect(matches, "step.categories", lambda label: label.category,
                     lambda match: judge_step_category(match.step) if match.step else None, "judge_no_category",
                     excluded)
    order = (*LABEL_CATEGORIES, UNCATEGORIZED)
    human, judge = [str(v) for v in pairs.human], [str(v) for v in pairs.judge]
    agree, kappa = label_agreement(human, judge, order, pairs.units, boot)
    matrix = stats.confusion_matrix(human, judge, labels=order)
    return CategoryAgreement(
        n=len(human), labels=list(order), matrix=[list(row) for row in matrix.counts], agreement=agree, kappa=kappa
    )


def _correlation(function: Callable[[npt.NDArray[np.float64], npt.NDArray[np.float64]], float | None],
                 human: npt.NDArray[np.float64], judge: npt.NDArray[np.float64]) -> Statistic:
    def statistic(idx: npt.NDArray[np.intp]) -> float | None:
        return function(human[idx], judge[idx])

    return statistic
