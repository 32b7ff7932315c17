"""Step, node and summary records: what their JSON holds, and what it leaves out."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tracegrade.atif.scoring._records import NodeResult, NodeStatusCode, RunSummary, StepResult, StepStatus
from tracegrade.atif.scoring._repeats import step_repeats
from tracegrade.runs import JobStatus


def step(**values: object) -> StepResult:
    return StepResult.model_validate({"index": 1, "segment": 0, "step_id": 1, "source": "agent",
                                      "status": "scored", "score": 0.5, **values})


def summary(**values: object) -> RunSummary:
    return RunSummary.model_validate({"atif_overall_score": None, "atif_trajectory_count": 0,
                                      "atif_failure_categorization_rate": None, "overall_score": None,
                                      "num_examples_evaluated": 0, "atif_complete": True,
                                      "subagent_aggregation": "flat", "job_status": "completed", **values})


def test_a_single_verdict_leaves_repeats_out_of_the_json() -> None:
    assert "repeats" not in step().model_dump(mode="json")
    assert "repeats" not in summary().model_dump(mode="json")
    assert "score" in step(score=None).model_dump(mode="json")  # other absent values stay, as null


def test_repeated_verdicts_are_kept_and_read_back() -> None:
    spread = step_repeats([0.4, 0.6], [None, 7], 0.5)
    repeated = step(repeats=spread)
    written = repeated.model_dump(mode="json")
    assert written["repeats"]["scores"] == [0.4, 0.6] and written["repeats"]["seeds"] == [None, 7]
    assert StepResult.model_validate(written) == repeated


def test_statuses_are_read_from_their_names() -> None:
    assert step().status is StepStatus.SCORED
    assert summary(job_status="interrupted").job_status is JobStatus.INTERRUPTED
    node = NodeResult.model_validate({
        "node_id": "a.json", "parent_id": None, "root_id": "a.json", "source_path": "a.json", "location": "",
        "trajectory_id": None, "session_id": None, "agent": "a", "depth": 0, "status": "unscored",
        "complete": False, "own_score": None, "aggregate": None, "passed": None, "step_count": 0,
        "subtree_step_count": 0, "total_steps": 2,
    })
    assert node.status is NodeStatusCode.UNSCORED and node.steps == [] and node.children == []


def test_records_are_frozen_and_refuse_unknown_fields() -> None:
    with pytest.raises(ValidationError, match="verdict"):
        step(verdict="pass")
    with pytest.raises(ValidationError):
        step().score = 0.9  # type: ignore[misc]
