from __future__ import annotations

from typing import Any

from evalhub.models.atif import Trajectory

from tests.atif.helpers import trajectory
from tracegrade.atif.reading._checks import check_trajectory, document_facts


def _rich_step() -> dict[str, Any]:
    return {
        "step_id": 2,
        "source": "agent",
        "message": [{"type": "audio", "source": {"media_type": "audio/wav", "path": "a.wav"}}],
        "is_copied_context": False,
        "llm_call_count": 1,
        "extra": {"context_management": {}},
        "observation": {
            "results": [{"subagent_trajectory_ref": [{"trajectory_path": "s.json", "trajectory_id": "s"}]}]
        },
        "metrics": {"prompt_tokens": -1, "completion_tokens": 2, "completion_token_ids": [1, 2, 3], "logprobs": [0.0]},
    }


def _doc(version: str) -> Trajectory:
    doc = trajectory(1, schema_version=version, final_metrics={"total_steps": 3})
    doc["steps"].append(_rich_step())
    return Trajectory.model_validate(doc)


METRICS = [
    "/steps/1/metrics/prompt_tokens is negative (-1)",
    "/steps/1/metrics: completion_token_ids has 3 entries but logprobs has 1",
    "/steps/1/metrics: completion_token_ids has 3 entries but completion_tokens is 2",
]


def test_old_version_warns_about_every_newer_feature() -> None:
    uses = [
        ("is_copied_context", 5),
        ("llm_call_count", 7),
        ("extra.context_management", 7),
        ("subagent_trajectory_ref.trajectory_id", 7),
        ("content parts", 6),
        ("audio content", 8),
    ]
    expected = ["/final_metrics/total_steps is 3 but the trajectory has 2 steps"]
    expected += [f"/steps/1: uses {name} (ATIF-v1.{minor}) but declares ATIF-v1.4" for name, minor in uses]
    assert list(check_trajectory(_doc("ATIF-v1.4"))) == expected + METRICS


def test_v17_warns_only_about_audio() -> None:
    warnings = list(check_trajectory(_doc("ATIF-v1.7")))
    assert warnings[1:] == ["/steps/1: uses audio content (ATIF-v1.8) but declares ATIF-v1.7", *METRICS]


def test_newest_version_keeps_metric_warnings_only() -> None:
    assert list(check_trajectory(_doc("ATIF-v1.8")))[1:] == METRICS


def test_document_facts() -> None:
    facts = document_facts(_doc("ATIF-v1.8"))
    assert (facts.schema_version, facts.agent, facts.steps) == ("ATIF-v1.8", "a", 2)
    assert (facts.embedded_subagents, facts.file_subagents, facts.continuation) == (0, 1, None)
    assert len(facts.warnings) == 4


def _with_metrics(**metrics: Any) -> Trajectory:
    doc = trajectory(2)
    doc["steps"][1]["metrics"] = metrics
    return Trajectory.model_validate(doc)


def test_clean_metrics_give_no_warning() -> None:
    assert list(check_trajectory(_with_metrics(prompt_tokens=0, completion_tokens=3, cost_usd=0.5))) == []


def test_negative_cost_without_token_ids_is_warned() -> None:
    warnings = list(check_trajectory(_with_metrics(cached_tokens=2, cost_usd=-0.25)))
    assert warnings == ["/steps/1/metrics/cost_usd is negative (-0.25)"]
