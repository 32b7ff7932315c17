"""``tracegrade compare A B --judges``: two judges (or panels) of the same trajectories, judge against judge.

Both runs must hold the same trajectories under the same rubric and scoring rules; only the judge may differ.
Every measure carries its n and a percentile bootstrap interval that resamples whole root trajectories (the steps
of one trajectory are not independent). Shifts are judge B − judge A.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field

from tracegrade import stats
from tracegrade.atif.agreement._maths import Bootstrap, label_agreement, spearman_rho
from tracegrade.atif.agreement._records import Estimate
from tracegrade.atif.output._compare_options import ComparisonOptions
from tracegrade.atif.output._compared import ComparedNode, ComparedStep
from tracegrade.atif.output._pairing import matched_nodes, matched_steps, pair_roots, root_trees
from tracegrade.atif.output._sides import ComparedRun, Difference, Side, check_allowed, guarded_differences, read_sides
from tracegrade.atif.reading._records import FrozenRecord
from tracegrade.atif.scoring._records import StepStatus
from tracegrade.errors import InputError

__all__ = ["JUDGES_FORMAT", "JUDGE_FIELDS", "JudgesComparison", "JudgesOutcome", "MatchedTree", "compare_judges",
           "measure_judges"]

JUDGES_FORMAT: Literal["tracegrade.atif.judge_comparison/1"] = "tracegrade.atif.judge_comparison/1"
JUDGE_FIELDS = (
    "judge.model", "judge.temperature", "judge.max_tokens", "judge.seed", "judge.response_format",
    "judge.system_role", "template_hashes", "atif_prompt_version", "judge_repeats", "max_context_bytes",
    "atif_copied_context",
)
"""Guarded fields that describe the judge: they may differ between the two runs of a judge comparison."""
DISAGREEMENTS = 25
"""Steps listed in ``disagreements`` (largest absolute shift first)."""
_VERDICTS = ("low", "not_low")
_UNCATEGORIZED = "uncategorized"


class JudgesLevelAgreement(FrozenRecord):
    """How the two judges agree at one level (steps or root trajectories)."""

    n: int = Field(description="Units scored by both judges.")
    spearman: Estimate
    pearson: Estimate
    pass_fail_rule: str = Field(description="What counts as a fail at this level, for both judges.")
    pass_fail_agreement: Estimate = Field(description="Share of units with the same pass/fail verdict.")
    kappa: Estimate = Field(description="Cohen's kappa of the two pass/fail verdicts.")
    matrix: list[list[int]] = Field(description="Rows judge A fail, pass; columns judge B fail, pass.")
    shift: Estimate = Field(description="Mean score of judge B − judge A.")


class JudgesCategoryAgreement(FrozenRecord):
    """Failure-category agreement over steps scored by both judges (``none``: not low)."""

    n: int
    labels: list[str]
    matrix: list[list[int]] = Field(description="Rows judge A, columns judge B, in the order of labels.")
    agreement: Estimate
    kappa: Estimate


class ShiftGroup(FrozenRecord):
    """The mean step-score shift (B − A) of one group of steps."""

    by: Literal["criterion", "source", "agent"]
    key: str
    shift: Estimate


class Disagreement(FrozenRecord):
    """A step the two judges scored far apart."""

    pair: str
    node: str = Field(description="Place under the root: empty for the root.")
    agent: str | None
    index: int
    step_id: int
    source: str
    score_a: float
    score_b: float
    shift: float = Field(description="score_b − score_a.")
    low_a: bool
    low_b: bool
    category_a: str | None
    category_b: str | None
    rationale_a: str | None
    rationale_b: str | None


class Unscored(FrozenRecord):
    """Matched steps left out of the step measures because a judge did not score them."""

    only_a: int = Field(description="Scored by judge A only.")
    only_b: int = Field(description="Scored by judge B only.")
    neither: int


class DisagreementGate(FrozenRecord):
    """The ``--fail-on-disagreement KAPPA`` verdict.

    It fires when the upper bound of the step pass/fail kappa's interval is below KAPPA (the judges agree less
    than KAPPA beyond the sample's chance), or when no interval exists to decide.
    """

    threshold: float | None = Field(description="KAPPA; null when the gate is off.")
    exit_code: int
    fired: list[str]
    checked: list[str]


class JudgesComparison(FrozenRecord):
    """What ``comparison.json`` holds for ``compare --judges``."""

    format: Literal["tracegrade.atif.judge_comparison/1"] = JUDGES_FORMAT
    a: ComparedRun
    b: ComparedRun
    judge_a: dict[str, object] = Field(description="Judge A's recorded identity (provenance).")
    judge_b: dict[str, object]
    judge_differences: list[Difference] = Field(description="Judge fields that differ (empty: the same judge).")
    allowed_differences: list[Difference] = Field(description="Non-judge guarded fields let through by name.")
    pairs: int
    resamples: int
    level: float
    seed: int
    step: JudgesLevelAgreement
    trajectory: JudgesLevelAgreement
    categories: JudgesCategoryAgreement
    shift_by: list[ShiftGroup] = Field(description="Where the step-score shift concentrates, largest first per group.")
    unscored: Unscored
    disagreements: list[Disagreement] = Field(description="Steps with the largest absolute shift.")
    gate: DisagreementGate


@dataclass(frozen=True)
class JudgesOutcome:
    """A finished judge comparison and the two runs behind it."""

    comparison: JudgesComparison
    a: Side
    b: Side


@dataclass(frozen=True)
class MatchedTree:
    """One root trajectory on both sides: its id and its nodes matched by place."""

    pair: str
    nodes: list[tuple[str, ComparedNode, ComparedNode]]


@dataclass
class _Columns:
    """Paired step values gathered from every matched tree (unit: the pair id)."""

    units: list[str] = field(default_factory=list)
    a: list[float] = field(default_factory=list)
    b: list[float] = field(default_factory=list)
    low_a: list[bool] = field(default_factory=list)
    low_b: list[bool] = field(default_factory=list)
    cat_a: list[str] = field(default_factory=list)
    cat_b: list[str] = field(default_factory=list)
    groups: dict[tuple[str, str], tuple[list[str], list[float]]] = field(default_factory=dict)
    rows: list[Disagreement] = field(default_factory=list)
    only_a: int = 0
    only_b: int = 0
    neither: int = 0

    def group(self, by: str, key: str, unit: str, shift: float) -> None:
        units, values = self.groups.setdefault((by, key), ([], []))
        units.append(unit)
        values.append(shift)


def _category(step: ComparedStep) -> str:
    return (step.category or _UNCATEGORIZED) if step.failure_candidate else "none"


def _gather(trees: Sequence[MatchedTree]) -> _Columns:
    cols = _Columns()
    for tree in trees:
        for place, left, right in tree.nodes:
            for first, second in matched_steps(left, right):
                scored = (first.status is StepStatus.SCORED and first.score is not None,
                          second.status is StepStatus.SCORED and second.score is not None)
                if scored != (True, True):
                    cols.only_a += scored == (True, False)
                    cols.only_b += scored == (False, True)
                    cols.neither += scored == (False, False)
                    continue
                assert first.score is not None and second.score is not None
                shift = second.score - first.score
                cols.units.append(tree.pair)
                cols.a.append(first.score)
                cols.b.append(second.score)
                cols.low_a.append(first.failure_candidate)
                cols.low_b.append(second.failure_candidate)
                cols.cat_a.append(_category(first))
                cols.cat_b.append(_category(second))
                cols.group("source", first.source, tree.pair, shift)
                cols.group("agent", left.agent or "(unnamed)", tree.pair, shift)
                for name, value in (first.criterion_scores or {}).items():
                    other = (second.criterion_scores or {}).get(name)
                    if other is not None:
                        cols.group("criterion", name, tree.pair, other - value)
                cols.rows.append(Disagreement(
                    pair=tree.pair, node=place, agent=left.agent, index=first.index, step_id=first.step_id,
                    source=first.source, score_a=first.score, score_b=second.score, shift=shift,
                    low_a=first.failure_candidate, low_b=second.failure_candidate,
                    category_a=first.category if first.failure_candidate else None,
                    category_b=second.category if second.failure_candidate else None,
                    rationale_a=first.rationale, rationale_b=second.rationale,
                ))
    return cols


def pearson_r(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float | None:
    """Pearson's r; None with fewer than two pairs or a constant sample."""
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    dx, dy = x - x.mean(), y - y.mean()
    return float(np.dot(dx, dy) / np.sqrt(np.dot(dx, dx) * np.dot(dy, dy)))


def _mean(values: npt.NDArray[np.float64]) -> Callable[[npt.NDArray[np.intp]], float | None]:
    return lambda idx: float(values[idx].mean()) if idx.size else None


def _level(units: list[str], a: list[float], b: list[float], low_a: list[bool], low_b: list[bool], rule: str,
           boot: Bootstrap) -> JudgesLevelAgreement:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    verdict_a = [_VERDICTS[0] if low else _VERDICTS[1] for low in low_a]
    verdict_b = [_VERDICTS[0] if low else _VERDICTS[1] for low in low_b]
    agree, kappa = label_agreement(verdict_a, verdict_b, _VERDICTS, units, boot)
    matrix = stats.confusion_matrix(verdict_a, verdict_b, labels=_VERDICTS)
    return JudgesLevelAgreement(
        n=len(units),
        spearman=boot.estimate(units, lambda idx: spearman_rho(x[idx], y[idx]), whole=stats.spearman(x, y)),
        pearson=boot.estimate(units, lambda idx: pearson_r(x[idx], y[idx]), whole=stats.pearson(x, y)),
        pass_fail_rule=rule, pass_fail_agreement=agree, kappa=kappa,
        matrix=[list(row) for row in matrix.counts], shift=boot.estimate(units, _mean(y - x)),
    )


def _root_score(node: ComparedNode) -> float | None:
    return node.aggregate if node.aggregate is not None else node.own_score


def _trajectory(trees: Sequence[MatchedTree], completion: float, boot: Bootstrap) -> JudgesLevelAgreement:
    units: list[str] = []
    a: list[float] = []
    b: list[float] = []
    fail_a: list[bool] = []
    fail_b: list[bool] = []
    for tree in trees:
        root = next((left, right) for place, left, right in tree.nodes if place == "")
        first, second = _root_score(root[0]), _root_score(root[1])
        if first is None or second is None or root[0].passed is None or root[1].passed is None:
            continue
        units.append(tree.pair)
        a.append(first)
        b.append(second)
        fail_a.append(not root[0].passed)
        fail_b.append(not root[1].passed)
    rule = f"not passed (aggregate < completion_threshold {completion:g} or incomplete)"
    return _level(units, a, b, fail_a, fail_b, rule, boot)


def _categories(cols: _Columns, boot: Bootstrap) -> JudgesCategoryAgreement:
    order = sorted(set(cols.cat_a) | set(cols.cat_b), key=lambda c: (c != "none", c))
    agree, kappa = label_agreement(cols.cat_a, cols.cat_b, order, cols.units, boot)
    matrix = stats.confusion_matrix(cols.cat_a, cols.cat_b, labels=order)
    return JudgesCategoryAgreement(n=len(cols.units), labels=order, matrix=[list(r) for r in matrix.counts],
                             agreement=agree, kappa=kappa)


def _shift_groups(cols: _Columns, boot: Bootstrap) -> list[ShiftGroup]:
    groups = [ShiftGroup(by=by, key=key, shift=boot.estimate(units, _mean(np.asarray(values, dtype=np.float64))))
              for (by, key), (units, values) in cols.groups.items()]
    order = {"criterion": 0, "source": 1, "agent": 2}
    return sorted(groups, key=lambda g: (order[g.by], -abs(g.shift.value or 0.0), g.key))


def gate_verdict(kappa: Estimate, threshold: float | None) -> DisagreementGate:
    """The ``--fail-on-disagreement`` verdict on the step pass/fail kappa."""
    if threshold is None:
        return DisagreementGate(threshold=None, exit_code=0, fired=[], checked=[])
    rule = f"fail_on_disagreement {threshold:g}"
    fired: list[str] = []
    if kappa.high is None:
        why = kappa.reason or "fewer than two trajectories or too few defined resamples"
        fired.append(f"{rule}: the step pass/fail kappa has no interval ({why}; n={kappa.n}), so agreement with "
                     f"kappa >= {threshold:g} cannot be shown")
    elif kappa.high < threshold:
        fired.append(f"{rule}: step pass/fail kappa {kappa.value:.3f}, interval [{kappa.low:.3f}, {kappa.high:.3f}] "
                     f"lies below {threshold:g} (n={kappa.n})")
    return DisagreementGate(threshold=threshold, exit_code=1 if fired else 0, fired=fired, checked=[rule])


@dataclass(frozen=True)
class Measured:
    """Every agreement figure of two judges over matched trees."""

    step: JudgesLevelAgreement
    trajectory: JudgesLevelAgreement
    categories: JudgesCategoryAgreement
    shift_by: list[ShiftGroup]
    unscored: Unscored
    disagreements: list[Disagreement]


def measure_judges(trees: Sequence[MatchedTree], *, completion_threshold: float, failure_threshold: float,
                   resamples: int = 2000, level: float = 0.95, seed: int = 0) -> Measured:
    """Agreement, shift and disagreements of judge A (left nodes) and judge B (right nodes) over ``trees``."""
    boot = Bootstrap(resamples, level, seed)
    cols = _gather(trees)
    rule = f"step flagged low (score < failure_threshold {failure_threshold:g})"
    rows = sorted(cols.rows, key=lambda r: (-abs(r.shift), r.pair, r.node, r.index))
    return Measured(
        step=_level(cols.units, cols.a, cols.b, cols.low_a, cols.low_b, rule, boot),
        trajectory=_trajectory(trees, completion_threshold, boot),
        categories=_categories(cols, boot),
        shift_by=_shift_groups(cols, boot),
        unscored=Unscored(only_a=cols.only_a, only_b=cols.only_b, neither=cols.neither),
        disagreements=[r for r in rows if r.shift != 0.0][:DISAGREEMENTS],
    )


def _matched(a: Side, b: Side) -> list[MatchedTree]:
    """Every root of both runs matched with its twin, node by node and step by step; anything else refuses.

    Raises:
        InputError: ``not_same_trajectories``, naming the first root, node or step found on one side only.
    """
    pairing = pair_roots(a.results.nodes, b.results.nodes)
    for which, alone in (("A", pairing.only_in_baseline), ("B", pairing.only_in_candidate)):
        if alone:
            raise InputError(f"runs do not judge the same trajectories: {alone[0]} is only in run {which} "
                             f"({len(alone)} root(s) unpaired)", code="not_same_trajectories")
    left, right = root_trees(a.results.nodes), root_trees(b.results.nodes)
    trees = []
    for pair in pairing.pairs:
        nodes = []
        for place, first, second in matched_nodes(left[pair.baseline.node_id], right[pair.candidate.node_id]):
            if first is None or second is None:
                which = "A" if second is None else "B"
                raise InputError(f"runs do not judge the same trajectories: pair {pair.id}: node "
                                 f"{place or '(root)'} is only in run {which}", code="not_same_trajectories")
            ids_a = [(s.segment, s.step_id) for s in first.steps]
            ids_b = [(s.segment, s.step_id) for s in second.steps]
            if ids_a != ids_b:
                raise InputError(f"runs do not judge the same trajectories: pair {pair.id}, node "
                                 f"{place or '(root)'}: {len(ids_a)} step(s) in run A, {len(ids_b)} in run B",
                                 code="not_same_trajectories")
            nodes.append((place, first, second))
        trees.append(MatchedTree(pair.id, nodes))
    return trees


def compare_judges(a: Path, b: Path, options: ComparisonOptions | None = None,
                   fail_on_disagreement: float | None = None) -> JudgesOutcome:
    """Compare the judges of two runs of the same trajectories.

    Raises:
        InputError: a folder is not a verified, whole judge run; the runs hold different trajectories
            (``not_same_trajectories``); or a non-judge guarded field (rubric, thresholds, aggregation,
            scored frames) differs and is not allowed (``not_comparable``).
        ConfigError: ``allow_different`` names a field that is not guarded.
    """
    options = options or ComparisonOptions()
    side_a, side_b = read_sides(a, b, ("run A", "run B"), options.allow_different)
    trees = _matched(side_a, side_b)
    both = ((t.pair, first, second) for t in trees for _, first, second in t.nodes)
    found = guarded_differences(side_a, side_b, both)
    judge_diffs = [d for d in found if d.field in JUDGE_FIELDS]
    allowed = check_allowed([d for d in found if d.field not in JUDGE_FIELDS], options.allow_different)
    parameters = side_a.results.parameters
    measured = measure_judges(trees, completion_threshold=parameters.completion_threshold,
                              failure_threshold=parameters.failure_threshold, resamples=options.resamples,
                              level=options.level, seed=options.seed)
    comparison = JudgesComparison(
        a=side_a.record(a), b=side_b.record(b), judge_a=side_a.judge(), judge_b=side_b.judge(),
        judge_differences=judge_diffs, allowed_differences=allowed, pairs=len(trees),
        resamples=options.resamples, level=options.level, seed=options.seed,
        step=measured.step, trajectory=measured.trajectory, categories=measured.categories,
        shift_by=measured.shift_by, unscored=measured.unscored, disagreements=measured.disagreements,
        gate=gate_verdict(measured.step.kappa, fail_on_disagreement),
    )
    return JudgesOutcome(comparison, side_a, side_b)
