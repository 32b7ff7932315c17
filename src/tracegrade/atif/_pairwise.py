"""One pairwise comparison job with I/O: two sets of trajectories in, the judge asked pair by pair in both orders.

Either side is trajectory files or folders, or a judge run folder (its trajectories are read again). Roots pair
by ``trajectory_id``, then ``session_id``, then relative path, then task text, each key used only when unique on
both sides. Every answer goes through the judge and its cache like any judge call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracegrade.atif._job import JudgeTarget, effective_options, open_judge
from tracegrade.atif._localise import localise_inputs
from tracegrade.atif.asking._pairwise import PAIRWISE_VERSION, PairwiseReply, pairwise_request, parse_pairwise
from tracegrade.atif.asking._pairwise import project_tree as project_tree
from tracegrade.atif.output._compare_options import ComparisonOptions
from tracegrade.atif.output._pairing import Paired, Pairing, pair_by
from tracegrade.atif.output._pairwise import (
    Answer,
    Choice,
    PairVerdict,
    PairwiseComparison,
    pair_outcome,
    pairwise_gate,
    summarise_pairs,
)
from tracegrade.atif.reading._load import load_trajectories
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.atif.reading._records import NodeStatus, TrajectoryNode
from tracegrade.atif.reading._task import resolve_task, task_hash
from tracegrade.errors import InputError, JudgeError
from tracegrade.judge import JudgeOptions, JudgeProtocol
from tracegrade.stats import GateOptions

__all__ = ["PairwiseOutcome", "compare_pairwise", "pair_trees", "run_pairwise"]

_OUTCOME_ORDER = {"loss": 0, "position_bias": 1, "tie": 2, "win": 3, "error": 4, "refused": 5}


@dataclass(frozen=True)
class PairwiseOutcome:
    """The comparison and, per pair, both runs' steps as text (for the HTML report)."""

    comparison: PairwiseComparison
    steps: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]]


def _key(method: str) -> Callable[[TrajectoryNode], str | None]:
    if method == "trajectory_id":
        return lambda node: node.trajectory_id
    if method == "session_id":
        return lambda node: node.trajectory.session_id if node.trajectory is not None else None
    if method == "relative_path":
        return lambda node: node.node_id
    return lambda node: task_hash(task) if (task := resolve_task(node)) else None


def pair_trees(baseline: list[TrajectoryNode], candidate: list[TrajectoryNode]) -> Pairing[TrajectoryNode]:
    """Pairs, roots of each side left alone, and how many pairs each key made."""
    return pair_by({n.node_id: n for n in baseline}, {n.node_id: n for n in candidate}, _key)


def _loaded(path: Path) -> list[TrajectoryNode]:
    """The loaded roots under ``path`` (trajectories, or the ones a judge run folder scored).

    Raises:
        InputError: nothing loadable there, or a root that failed to load (named).
    """
    roots = list(load_trajectories(localise_inputs([path]).paths, LoadOptions()).roots)
    for root in roots:
        if root.status is not NodeStatus.LOADED:
            raise InputError(f"{path}: {root.node_id} could not be read ({root.reason or root.status.value})")
    return roots


async def _ask(judge: JudgeProtocol, task: str, first: TrajectoryNode, second: TrajectoryNode,
               budget: int, order: str, first_is: Choice) -> Answer:
    second_is: Choice = "candidate" if first_is == "baseline" else "baseline"
    try:
        request, view = pairwise_request(task, first, second, budget)
        reply: PairwiseReply = await judge.ask(request, parse_pairwise)
    except JudgeError as error:
        return Answer(order=order, choice=None, reason=None, error_code=error.code)
    choice: Choice = first_is if reply.winner == "first" else second_is if reply.winner == "second" else "tie"
    return Answer(order=order, choice=choice, reason=reply.reason, view=view)


async def _verdict(judge: JudgeProtocol, pair: Paired[TrajectoryNode], budget: int) -> PairVerdict:
    task = resolve_task(pair.baseline) or resolve_task(pair.candidate) or ""
    answers = await asyncio.gather(
        _ask(judge, task, pair.baseline, pair.candidate, budget, "baseline_first", "baseline"),
        _ask(judge, task, pair.candidate, pair.baseline, budget, "candidate_first", "candidate"),
    )
    outcome = pair_outcome(answers[0].choice, answers[1].choice)
    codes = [a.error_code for a in answers if a.error_code]
    error = None
    if codes:
        outcome = "refused" if "context_overflow" in codes else "error"
        error = ("the two trajectories do not fit max_context_bytes even as compact steps" if outcome == "refused"
                 else f"the judge gave no usable answer ({', '.join(codes)})")
    return PairVerdict(id=pair.id, candidate_root=pair.candidate.node_id, matched_by=pair.matched_by,
                       outcome=outcome, answers=list(answers), error=error)


def _texts(root: TrajectoryNode) -> list[dict[str, Any]]:
    from tracegrade.judge import dumps

    rows = []
    for step in project_tree(root):
        message = step.get("message")
        rest = {k: v for k, v in step.items() if k not in ("agent", "source", "message", "step_id")}
        text = message if isinstance(message, str) else dumps(message).decode()
        if rest:
            text = f"{text}\n{dumps(rest).decode()}"
        rows.append({"agent": step["agent"], "source": step["source"], "text": text})
    return rows


async def run_pairwise(judge: JudgeProtocol, baseline: Path, candidate: Path, *, max_context_bytes: int,
                       options: ComparisonOptions, gate: GateOptions) -> PairwiseOutcome:
    """Ask ``judge`` about every pair of ``baseline`` and ``candidate`` in both orders and sum it up.

    Raises:
        InputError: a side has nothing loadable, a root that does not load, or no root pairs.
    """
    base_roots, cand_roots = await asyncio.to_thread(_loaded, baseline), await asyncio.to_thread(_loaded, candidate)
    pairing = pair_trees(base_roots, cand_roots)
    pairs = pairing.pairs
    if not pairs:
        raise InputError(f"{baseline} and {candidate}: no trajectory pairs (by trajectory_id, session_id, path or "
                         "task text)", code="not_comparable")
    verdicts = list(await asyncio.gather(*(_verdict(judge, pair, max_context_bytes) for pair in pairs)))
    verdicts.sort(key=lambda v: (_OUTCOME_ORDER[v.outcome], v.id))
    summary = summarise_pairs(verdicts, resamples=options.resamples, level=options.level, seed=options.seed)
    judge_stats = judge.stats
    comparison = PairwiseComparison(
        baseline=str(baseline), candidate=str(candidate), judge=judge.provenance(), prompt_version=PAIRWISE_VERSION,
        pairing=pairing.methods, only_in_baseline=pairing.only_in_baseline,
        only_in_candidate=pairing.only_in_candidate, **summary,
        resamples=options.resamples, level=options.level, seed=options.seed,
        gate=pairwise_gate(summary["net_win_rate"], summary["counts"]["loss"], gate), pairs=verdicts,
        judge_calls={"requests": judge_stats.requests, "cache_hits": judge_stats.cache_hits,
                     "protocol_errors": judge_stats.protocol_errors},
    )
    steps = {p.id: (_texts(p.baseline), _texts(p.candidate)) for p in pairs}
    return PairwiseOutcome(comparison, steps)


async def compare_pairwise(baseline: Path, candidate: Path, target: JudgeTarget, judge_options: JudgeOptions, *,
                           options: ComparisonOptions, gate: GateOptions, cache_path: Path | None) -> PairwiseOutcome:
    """Open the judge at ``target`` (with its cache) and run :func:`run_pairwise`."""
    judge_options = effective_options(judge_options, target)
    async with open_judge(target, judge_options, cache_path=cache_path) as judge:
        return await run_pairwise(judge, baseline, candidate, max_context_bytes=judge_options.max_context_bytes,
                                  options=options, gate=gate)
