from __future__ import annotations

import numpy as np
import pytest

from tests.atif.agree_data import node, step
from tracegrade.atif.scoring._maths import SubagentAggregation, collection_score
from tracegrade.atif.scoring._records import NodeResult
from tracegrade.atif.scoring._repeats import collection_weights, repeat_seed, score_interval, step_repeats


def test_repeat_zero_keeps_the_configured_seed_and_later_repeats_differ() -> None:
    assert repeat_seed(None, 0) is None and repeat_seed(7, 0) == 7
    seeds = {repeat_seed(7, r) for r in range(1, 6)} | {repeat_seed(None, r) for r in range(1, 6)}
    assert len(seeds) == 10 and all(isinstance(s, int) and 0 <= s < 2**31 for s in seeds)
    assert repeat_seed(7, 2) == repeat_seed(7, 2)  # a rerun asks (and finds cached) the same seeds


def test_step_spread_by_hand() -> None:
    spread = step_repeats([0.4, 0.6, 0.8], [None, 1, 2], failure_threshold=0.5)
    assert spread.std == pytest.approx(0.2)  # sample std of 0.4, 0.6, 0.8
    assert (spread.min, spread.max, spread.unstable) == (0.4, 0.8, True)
    assert not step_repeats([0.5, 0.9], [None, 1], failure_threshold=0.5).unstable  # 0.5 is not below 0.5
    assert not step_repeats([0.1, 0.3], [None, 1], failure_threshold=0.5).unstable


def tree() -> list[NodeResult]:
    parent = node("p", [step(1, 0.9), step(2, 0.3)]).model_copy(
        update={"children": ["c"], "subtree_step_count": 5, "aggregate": (0.9 + 0.3 + 0.2 + 0.4 + 0.6) / 5}
    )
    child = node("c", [step(1, 0.2), step(2, 0.4), step(3, 0.6)]).model_copy(
        update={"parent_id": "p", "root_id": "p", "depth": 1}
    )
    other = node("q", [step(1, 1.0)])
    return [parent, child, other]


@pytest.mark.parametrize("mode", list(SubagentAggregation))
def test_weights_reproduce_the_collection_score(mode: SubagentAggregation) -> None:
    nodes = tree()
    weights = collection_weights(nodes, mode.value)
    by_id = {n.node_id: n for n in nodes}
    expected, _ = collection_score(nodes, mode)
    assert sum(w * (by_id[k].own_score or 0.0) for k, w in weights.items()) == pytest.approx(expected)


def test_interval_resamples_steps_within_nodes() -> None:
    nodes = tree()
    overall, _ = collection_score(nodes, SubagentAggregation.FLAT)
    interval = score_interval(nodes, overall, "flat", resamples=4000, level=0.95, seed=0)
    assert interval.low is not None and interval.high is not None
    assert interval.low < overall < interval.high
    # q has one step (never varies); p and c means vary: by hand the flat score's sd is
    # sqrt(var_p/2 + var_c/3)/3 with population variances 0.09 and 0.08/3
    sd = np.sqrt(0.09 / 2 + (0.08 / 3) / 3) / 3
    assert interval.high - interval.low == pytest.approx(2 * 1.96 * sd, rel=0.15)


def test_no_interval_without_a_score_or_with_one_step() -> None:
    assert score_interval([], None, "flat", resamples=10, level=0.95, seed=0).reason == "no run-level score"
    single = [node("a", [step(1, 0.7)])]
    assert score_interval(single, 0.7, "flat", resamples=10, level=0.95, seed=0).reason == "fewer than 2 scored steps"
