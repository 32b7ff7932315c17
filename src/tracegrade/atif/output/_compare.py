"""``tracegrade compare BASELINE CANDIDATE``: two judge runs, comparability checked first, paired by trajectory.

Every figure is candidate − baseline and carries its n. Pairs where either root could not be scored are their
own outcome (``failed_in_baseline``, ``failed_in_candidate``, ``failed_in_both``) and stay out of the deltas.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from tracegrade.atif.output._compare_options import ComparisonOptions
from tracegrade.atif.output._compared import ComparedNode
from tracegrade.atif.output._pairing import Paired, Pairing, matched_nodes, matched_steps, pair_roots, root_trees
from tracegrade.atif.output._sides import ComparedRun, Difference, Side, check_allowed, guarded_differences, read_sides
from tracegrade.atif.reading._records import FrozenRecord
from tracegrade.atif.scoring._params import SubagentAggregation
from tracegrade.atif.scoring._records import NodeStatusCode, StepStatus
from tracegrade.stats import GateOptions, GateVerdict, PairedComparison, PairedUnits, apply_gate, compare_paired

__all__ = ["COMPARISON_FORMAT", "AtifComparison", "ComparisonOptions", "ComparisonOutcome", "compare_runs"]

COMPARISON_FORMAT: Literal["tracegrade.atif.comparison/1"] = "tracegrade.atif.comparison/1"
Outcome = Literal["improved", "regressed", "unchanged", "failed_in_baseline", "failed_in_candidate", "failed_in_both"]


class NodeDelta(FrozenRecord):
    """One node of a pair's trees on both sides: its own score and status."""

    node: str = Field(description="Place under the root: empty for the root, else the subagent's id suffix.")
    agent: str | None
    baseline_status: str | None = Field(description="Null when the baseline tree has no such node.")
    candidate_status: str | None
    baseline_own: float | None
    candidate_own: float | None
    delta: float | None = Field(description="Own-score delta; null unless both sides scored the node.")


class PairRecord(FrozenRecord):
    """One paired trajectory."""

    id: str = Field(description="The baseline root's path relative to its input root.")
    candidate_root: str
    matched_by: str = Field(description="trajectory_id, session_id, relative_path or task_hash.")
    outcome: Outcome
    baseline_score: float | None = Field(description="The root's contribution to the collection score.")
    candidate_score: float | None
    delta: float | None = Field(description="candidate_score − baseline_score; null unless both sides scored.")
    baseline_aggregate: float | None
    candidate_aggregate: float | None
    aggregate_delta: float | None
    baseline_passed: bool | None
    candidate_passed: bool | None
    nodes: list[NodeDelta] = Field(description="Every node of both trees, root first.")


class CriterionDelta(FrozenRecord):
    """Mean per-step delta of one criterion over steps scored on both sides."""

    criterion: str
    mean_delta: float
    n: int = Field(description="Matched steps with this criterion scored on both sides.")


class CategoryShift(FrozenRecord):
    """How many matched low steps moved from one failure category to another (``not_low``: not a low step)."""

    baseline: str
    candidate: str
    n: int


class JudgeErrors(FrozenRecord):
    """The judge's protocol and transport failures of one run."""

    protocol_errors: int
    http_errors: int
    transport_errors: int
    failed_steps: int = Field(description="Steps the judge could not score.")
    failed_nodes: int = Field(description="Nodes that failed or stayed unscored.")


class ComparisonParameters(FrozenRecord):
    """What the comparison was run with."""

    resamples: int
    level: float
    seed: int
    min_delta: float
    fail_on_regression: bool
    fail_on_new_failures: bool


class AtifComparison(PairedComparison):
    """What ``comparison.json`` holds: the shared paired figures and the ATIF ones."""

    format: Literal["tracegrade.atif.comparison/1"] = COMPARISON_FORMAT
    baseline: ComparedRun
    candidate: ComparedRun
    comparable: bool = Field(description="True when no guarded field differs; false when differences were allowed.")
    allowed_differences: list[Difference] = Field(description="Guarded fields that differ, let through by name.")
    warnings: list[str] = Field(default_factory=list, description=(
        "What differs between the runs without making them incomparable: the judge endpoints (one model name may "
        "be served by different models), a judge cache shared across endpoints."))
    primary: str = Field("atif_overall_score", description="The score the deltas, interval and gate are about.")
    subagent_aggregation: str = Field(description="How a pair's nodes make up its score (the runs' setting).")
    pairing: dict[str, int] = Field(description="Pairs made by each identity, in the order they were tried.")
    only_in_baseline: list[str] = Field(description="Roots of the baseline that pair with nothing.")
    only_in_candidate: list[str] = Field(description="Roots of the candidate that pair with nothing.")
    unscored: list[str] = Field(description="Pairs left out of the deltas: a side could not be scored.")
    per_criterion: list[CriterionDelta]
    category_shift: list[CategoryShift] = Field(description="Matched steps low on either side, by category pair.")
    category_shift_n: int = Field(description="Matched steps low on either side.")
    protocol_errors: dict[str, JudgeErrors] = Field(description="baseline and candidate.")
    parameters: ComparisonParameters
    gate: GateVerdict
    pairs: list[PairRecord] = Field(description="Every pair, biggest regression first, unscored pairs last.")


@dataclass(frozen=True)
class ComparisonOutcome:
    """A finished comparison and the two runs behind it (the HTML report shows their steps)."""

    comparison: AtifComparison
    baseline: Side
    candidate: Side


_Trees = dict[str, list[ComparedNode]]
"""A run's nodes by the root they belong to."""
_Contribution = tuple[float, int] | None
"""A root's total and count in the collection score; None when it did not score."""


@dataclass(frozen=True)
class _Matched:
    """A pair with the nodes of its two trees matched by place."""

    pair: Paired[ComparedNode]
    nodes: list[tuple[str, ComparedNode | None, ComparedNode | None]]
    baseline: _Contribution
    candidate: _Contribution


def _contribution(root: ComparedNode, tree: Sequence[ComparedNode], mode: SubagentAggregation) -> _Contribution:
    """A root's total and count in the collection score under ``mode``; None when the root did not score."""
    if root.status is not NodeStatusCode.SCORED:
        return None
    if mode is SubagentAggregation.FLAT:
        values = [n.own_score for n in tree if n.status is NodeStatusCode.SCORED and n.own_score is not None]
        return (sum(values), len(values)) if values else None
    value = root.aggregate if mode is SubagentAggregation.HIERARCHICAL else root.own_score
    return None if value is None else (value, 1)


def _matched(pairing: Pairing[ComparedNode], trees: tuple[_Trees, _Trees], mode: SubagentAggregation) -> list[_Matched]:
    matched = []
    for pair in pairing.pairs:
        base_tree, cand_tree = trees[0][pair.baseline.node_id], trees[1][pair.candidate.node_id]
        matched.append(_Matched(pair, list(matched_nodes(base_tree, cand_tree)),
                                _contribution(pair.baseline, base_tree, mode),
                                _contribution(pair.candidate, cand_tree, mode)))
    return matched


def _delta(first: float | None, second: float | None) -> float | None:
    return None if first is None or second is None else second - first


def _node_delta(place: str, base: ComparedNode | None, cand: ComparedNode | None) -> NodeDelta:
    def own(node: ComparedNode | None) -> float | None:
        return node.own_score if node is not None and node.status is NodeStatusCode.SCORED else None

    either = base or cand
    return NodeDelta(
        node=place, agent=either.agent if either else None,
        baseline_status=None if base is None else base.status.value,
        candidate_status=None if cand is None else cand.status.value,
        baseline_own=own(base), candidate_own=own(cand), delta=_delta(own(base), own(cand)),
    )


@dataclass
class _Tally:
    """Step-level figures of the matched nodes of every pair."""

    criteria: defaultdict[str, list[float]]
    shifts: Counter[tuple[str, str]]

    def add(self, base: ComparedNode, cand: ComparedNode) -> None:
        for first, second in matched_steps(base, cand):
            if first.status is StepStatus.SCORED and second.status is StepStatus.SCORED and first.criterion_scores:
                others = second.criterion_scores or {}
                for name, value in first.criterion_scores.items():
                    other = others.get(name)
                    if other is not None:
                        self.criteria[name].append(other - value)
            if first.failure_candidate or second.failure_candidate:
                self.shifts[(_category(first.failure_candidate, first.category),
                             _category(second.failure_candidate, second.category))] += 1


def _category(low: bool, category: str | None) -> str:
    return (category or "uncategorized") if low else "not_low"


def _tally(matched: list[_Matched]) -> _Tally:
    tally = _Tally(defaultdict(list), Counter())
    for item in matched:
        for _, base, cand in item.nodes:
            if base is not None and cand is not None:
                tally.add(base, cand)
    return tally


def _score(contribution: _Contribution) -> float | None:
    return None if contribution is None else contribution[0] / contribution[1]


def _outcome(item: _Matched, changed: dict[str, Outcome]) -> Outcome:
    if item.baseline is None and item.candidate is None:
        return "failed_in_both"
    if item.baseline is None:
        return "failed_in_baseline"
    if item.candidate is None:
        return "failed_in_candidate"
    return changed.get(item.pair.id, "unchanged")


def _pair_record(item: _Matched, outcome: Outcome) -> PairRecord:
    pair, b_root, c_root = item.pair, item.pair.baseline, item.pair.candidate
    base_score, cand_score = _score(item.baseline), _score(item.candidate)
    return PairRecord(
        id=pair.id, candidate_root=c_root.node_id, matched_by=pair.matched_by, outcome=outcome,
        baseline_score=base_score, candidate_score=cand_score, delta=_delta(base_score, cand_score),
        baseline_aggregate=b_root.aggregate, candidate_aggregate=c_root.aggregate,
        aggregate_delta=_delta(b_root.aggregate, c_root.aggregate),
        baseline_passed=b_root.passed, candidate_passed=c_root.passed,
        nodes=[_node_delta(place, base, cand) for place, base, cand in item.nodes],
    )


def _judge_errors(side: Side) -> JudgeErrors:
    judge, nodes = side.results.summary.judge, side.results.nodes
    return JudgeErrors(
        protocol_errors=judge.get("protocol_errors", 0), http_errors=judge.get("http_errors", 0),
        transport_errors=judge.get("transport_errors", 0),
        failed_steps=sum(1 for n in nodes for s in n.steps if s.status is StepStatus.FAILED),
        failed_nodes=sum(1 for n in nodes if n.status in (NodeStatusCode.FAILED, NodeStatusCode.UNSCORED)),
    )


def compare_runs(
    baseline: Path, candidate: Path, options: ComparisonOptions | None = None, gate: GateOptions | None = None
) -> ComparisonOutcome:
    """Compare two judge run folders: comparability, pairing, paired figures and the gate's verdict.

    Raises:
        InputError: a folder is not a verified, whole judge run (``not_a_run_folder``, ``incomplete_run``,
            ``shard_not_merged``...), or the runs differ in a guarded field not allowed (``not_comparable``).
        ConfigError: ``allow_different`` names a field that is not guarded.
    """
    options, gate = options or ComparisonOptions(), gate or GateOptions()
    base_side, cand_side = read_sides(baseline, candidate, ("baseline", "candidate"), options.allow_different)
    base_nodes, cand_nodes = base_side.results.nodes, cand_side.results.nodes
    pairing = pair_roots(base_nodes, cand_nodes)
    mode = SubagentAggregation(base_side.results.summary.subagent_aggregation)
    matched = _matched(pairing, (root_trees(base_nodes), root_trees(cand_nodes)), mode)
    both = ((item.pair.id, base, cand) for item in matched for _, base, cand in item.nodes
            if base is not None and cand is not None)
    allowed = check_allowed(guarded_differences(base_side, cand_side, both), options.allow_different)
    tally = _tally(matched)
    paired = compare_paired(_units(matched), min_delta=gate.min_delta, resamples=options.resamples,
                            level=options.level, seed=options.seed)
    changed: dict[str, Outcome] = {**dict.fromkeys(paired.improved, "improved"),
                                   **dict.fromkeys(paired.regressed, "regressed")}
    records = [_pair_record(item, _outcome(item, changed)) for item in matched]
    paired = paired.model_copy(update={"newly_failing": [*paired.newly_failing, *_unscorable_failures(records)]})
    comparison = AtifComparison(
        **dict(paired),
        baseline=base_side.record(baseline), candidate=cand_side.record(candidate),
        comparable=not allowed, allowed_differences=allowed, warnings=endpoint_warnings(base_side, cand_side),
        subagent_aggregation=mode.value,
        pairing=pairing.methods, only_in_baseline=pairing.only_in_baseline,
        only_in_candidate=pairing.only_in_candidate,
        unscored=[r.id for r in records if r.outcome.startswith("failed_in")],
        per_criterion=[CriterionDelta(criterion=name, mean_delta=sum(v) / len(v), n=len(v))
                       for name, v in sorted(tally.criteria.items())],
        category_shift=[CategoryShift(baseline=b, candidate=c, n=n) for (b, c), n in sorted(tally.shifts.items())],
        category_shift_n=sum(tally.shifts.values()),
        protocol_errors={"baseline": _judge_errors(base_side), "candidate": _judge_errors(cand_side)},
        parameters=ComparisonParameters(resamples=options.resamples, level=options.level, seed=options.seed,
                                        **gate.model_dump()),
        gate=apply_gate(paired, gate),
        pairs=sorted(records, key=_order),
    )
    return ComparisonOutcome(comparison, base_side, cand_side)


def _unscorable_failures(records: list[PairRecord]) -> list[str]:
    """Pairs that passed on the baseline and could not be scored on the candidate: new failures for the gate."""
    return [r.id for r in records if r.outcome == "failed_in_candidate" and r.baseline_passed is True]


def endpoint_warnings(baseline: Side, candidate: Side) -> list[str]:
    """A line when the runs' judge endpoints differ, and one for each run whose cache was shared across endpoints."""
    base, cand = baseline.judge(), candidate.judge()
    warnings = []
    if base.get("endpoint") != cand.get("endpoint"):
        warnings.append(f"judge endpoints differ: baseline {base.get('endpoint') or 'not recorded'}, candidate "
                        f"{cand.get('endpoint') or 'not recorded'} (one model name may be served by different "
                        "models)")
    for name, recorded in (("baseline", base), ("candidate", cand)):
        if recorded.get("cache_shared_across_endpoints"):
            warnings.append(f"the {name} reused cached answers of any endpoint serving "
                            f"{recorded.get('model')!r} (--judge-cache-shared-across-endpoints)")
    return warnings


def _units(matched: list[_Matched]) -> PairedUnits:
    """The totals, counts and pass flags of the pairs scored on both sides."""
    scored = [(m.pair, m.baseline, m.candidate) for m in matched if m.baseline is not None and m.candidate is not None]
    return PairedUnits(
        ids=[pair.id for pair, _, _ in scored],
        baseline=[b[0] for _, b, _ in scored], candidate=[c[0] for _, _, c in scored],
        baseline_counts=[b[1] for _, b, _ in scored], candidate_counts=[c[1] for _, _, c in scored],
        baseline_passed=[pair.baseline.passed for pair, _, _ in scored],
        candidate_passed=[pair.candidate.passed for pair, _, _ in scored],
    )


def _order(record: PairRecord) -> tuple[bool, float, str]:
    """Biggest regression first; pairs without a delta last."""
    return (record.delta is None, record.delta if record.delta is not None else 0.0, record.id)
