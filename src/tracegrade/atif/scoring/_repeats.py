"""Repeated judgements: seeds per repeat, the spread of a step's verdicts, and the run's stability summary.

The run-level interval resamples the scored steps of every node with replacement (each node keeps its
number of steps) and recomputes atif_overall_score.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tracegrade import stats
from tracegrade.atif.scoring._records import NodeResult, NodeStatusCode, StepStatus
from tracegrade.atif.scoring._repeat_records import RepeatSummary, ScoreInterval, StepRepeats

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["collection_weights", "repeat_seed", "repeat_summary", "step_repeats"]

_SEED_MASK = 0x7FFF_FFFF
"""Derived seeds are non-negative 31-bit integers (accepted by every OpenAI-compatible server)."""
_METHOD = "steps resampled with replacement within each node"


def repeat_seed(base: int | None, repeat: int) -> int | None:
    """The sampling seed of verdict ``repeat`` of a step: the configured seed for repeat 0.

    Later repeats get a seed derived from it and the repeat index: each a distinct request, the same on a rerun.
    """
    if repeat == 0:
        return base
    digest = hashlib.sha256(f"tracegrade.judge_repeats:{base}:{repeat}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & _SEED_MASK


def step_repeats(scores: Sequence[float], seeds: Sequence[int | None], failure_threshold: float) -> StepRepeats:
    """The spread of one step's verdicts (at least two)."""
    spread = stats.std(list(scores))
    low, high = min(scores), max(scores)
    return StepRepeats(scores=list(scores), seeds=list(seeds), std=spread if spread is not None else 0.0, min=low,
                       max=high, unstable=low < failure_threshold <= high)


def repeat_summary(nodes: Sequence[NodeResult], overall_score: float | None, aggregation: str, repeats: int, *,
                   resamples: int = 2000, level: float = 0.95, seed: int = 0) -> RepeatSummary:
    """Share of unstable steps and the bootstrap interval of ``overall_score`` over steps."""
    import numpy as np

    spreads = [s.repeats for n in nodes for s in n.steps if s.status is StepStatus.SCORED and s.repeats is not None]
    unstable = sum(spread.unstable for spread in spreads)
    deviations = [spread.std for spread in spreads]
    return RepeatSummary(
        repeats=repeats,
        steps=len(spreads),
        unstable_steps=unstable,
        unstable_share=unstable / len(spreads) if spreads else None,
        mean_std=float(np.mean(deviations)) if deviations else None,
        max_std=max(deviations) if deviations else None,
        overall_score_interval=score_interval(
            nodes, overall_score, aggregation, resamples=resamples, level=level, seed=seed
        ),
    )


def score_interval(nodes: Sequence[NodeResult], overall_score: float | None, aggregation: str, *, resamples: int,
                   level: float, seed: int) -> ScoreInterval:
    """Percentile bootstrap interval of the run-level score, resampling steps within each node."""
    import numpy as np


    def empty(reason: str) -> ScoreInterval:
        return ScoreInterval(low=None, high=None, level=level, resamples=resamples, method=_METHOD, reason=reason)

    if overall_score is None:
        return empty("no run-level score")
    weights = collection_weights(nodes, aggregation)
    samples = {n.node_id: _step_scores(n) for n in nodes if weights.get(n.node_id)}
    if any(not values.size for values in samples.values()):
        return empty("a counted node has no scored step")
    estimate = sum(weights[node] * float(values.mean()) for node, values in samples.items())
    if not np.isclose(estimate, overall_score, rtol=0.0, atol=1e-9):
        return empty("the run-level score is not a weighted mean of the step scores shown")
    if sum(values.size for values in samples.values()) < 2:
        return empty("fewer than 2 scored steps")
    rng = np.random.default_rng(seed)
    total = np.zeros(resamples, dtype=np.float64)
    for node, values in samples.items():
        picks = rng.integers(0, values.size, size=(resamples, values.size))
        total += weights[node] * values[picks].mean(axis=1)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(total, [tail, 100.0 - tail])
    return ScoreInterval(low=float(low), high=float(high), level=level, resamples=resamples, method=_METHOD)


def collection_weights(nodes: Sequence[NodeResult], aggregation: str) -> dict[str, float]:
    """Weight of each node's own mean in atif_overall_score under ``aggregation`` (flat, hierarchical, separate)."""
    if aggregation == "flat":
        good_roots = {n.node_id for n in nodes if n.depth == 0 and n.status is NodeStatusCode.SCORED}
        counted = [
            n.node_id
            for n in nodes
            if n.status is NodeStatusCode.SCORED and n.own_score is not None and n.root_id in good_roots
        ]
        return {node: 1.0 / len(counted) for node in counted}
    if aggregation == "separate":
        roots = [n.node_id for n in nodes if n.depth == 0 and n.own_score is not None]
        return {node: 1.0 / len(roots) for node in roots}
    return _hierarchical_weights(nodes)


def _hierarchical_weights(nodes: Sequence[NodeResult]) -> dict[str, float]:
    by_id = {n.node_id: n for n in nodes}
    roots = [n for n in nodes if n.depth == 0 and n.aggregate is not None]
    weights: dict[str, float] = {}

    def spread(node: NodeResult, share: float) -> None:
        # a node's own mean weighs own_steps / subtree_steps of its aggregate; children weigh their subtree steps
        if node.subtree_step_count == 0:
            return
        weights[node.node_id] = weights.get(node.node_id, 0.0) + share * node.step_count / node.subtree_step_count
        for child_id in node.children:
            child = by_id.get(child_id)
            if child is not None and child.aggregate is not None:
                spread(child, share * child.subtree_step_count / node.subtree_step_count)

    for root in roots:
        spread(root, 1.0 / len(roots))
    return weights


def _step_scores(node: NodeResult) -> npt.NDArray[np.float64]:
    import numpy as np

    return np.asarray(
        [s.score for s in node.steps if s.status is StepStatus.SCORED and s.score is not None], dtype=np.float64
    )
