"""Same inputs and same judge answers give the same results, whatever the judge's latencies."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.atif.delayed import marker_judge
from tests.atif.scripted import CUSTOM, trajectory, write
from tracegrade.atif import EvaluationResults, JobContext, merge_results, parse_parameters, score_paths
from tracegrade.runs import Shard

TRAJECTORIES = {
    # a low step (categorised) beside two failing steps of the same node
    "a.json": ("Fix the bug SCORE:0.9", "SCORE:0.2 CAT:context_loss", "FAIL", "SLOW"),
    "b.json": ("Write the report SCORE:0.9", "SCORE:0.1 CAT:tool_selection_failure", "SCORE:0.8"),
    "c.json": ("Plan the trip SCORE:0.6", "SCORE:0.3 CAT:none"),
    "d.json": ("Sort the list SCORE:1.0", "SLOW", "SCORE:0.4"),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("timing")
    for name, messages in TRAJECTORIES.items():
        write(folder / name, trajectory(*messages))
    return folder


def run(folder: Path, seed: int | None, shard: Shard | None = None) -> EvaluationResults:
    options, criteria = parse_parameters({**CUSTOM, "partial_result_policy": "skip_failed_trajectory"})
    rng = random.Random(seed)
    judge = marker_judge(lambda request: 0.0 if seed is None else rng.uniform(0.0, 0.012))
    return asyncio.run(score_paths([folder], options, criteria, judge, JobContext("j", shard=shard)))


def comparable(results: EvaluationResults) -> dict[str, Any]:
    return results.model_dump(mode="json", exclude={"created_at"})


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_judge_latencies_never_change_the_results(inputs: Path, seed: int) -> None:
    assert comparable(run(inputs, seed)) == comparable(run(inputs, None))


def test_a_failed_node_still_categorises_its_low_steps_and_names_its_first_failure(inputs: Path) -> None:
    results = run(inputs, None)
    node = next(n for n in results.nodes if n.node_id == "a.json")
    assert node.status == "failed" and node.error_code == "transport_error"
    assert node.message == "step 3: transport_error"  # the earliest failure, whichever answered first
    assert [s.status.value for s in node.steps] == ["scored", "scored", "failed", "failed"]
    assert node.steps[1].category == "context_loss"
    # every node has a low step: a, b and d are categorised, c abstained with "none"
    assert results.summary.atif_failure_categorization_rate == pytest.approx(3 / 4)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_merged_shards_equal_the_unsharded_run_whatever_the_latencies(inputs: Path, seed: int) -> None:
    whole = run(inputs, None)
    merged = merge_results([run(inputs, seed + i, Shard(i, 3)) for i in range(3)])
    assert merged.summary.model_dump(exclude={"judge"}) == whole.summary.model_dump(exclude={"judge"})
    assert merged.nodes == whole.nodes and merged.inputs == whole.inputs and merged.parameters == whole.parameters
