from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.atif.output.test_compare import runs
from tracegrade.atif import EvaluationResults, read_results
from tracegrade.atif.output import GUARDED_FIELDS
from tracegrade.atif.output._sides import (
    NODE_FIELDS,
    check_allowed,
    check_field_names,
    node_differences,
    read_side,
    run_differences,
)
from tracegrade.atif.scoring import SubagentAggregation
from tracegrade.errors import ConfigError, InputError
from tracegrade.rubric import ScoringMode

__all__ = ["runs"]

_CHANGED: dict[str, Any] = {
    "judge.temperature": 0.7, "judge.max_tokens": 99, "judge.seed": 5, "judge.response_format": "json_object",
    "judge.system_role": False, "judge.model": "other", "template_hashes": {"score": "0" * 64},
    "atif_prompt_version": "atif-context-v2", "judge_repeats": 3, "max_context_bytes": 1000,
    "scoring_mode": ScoringMode.CUSTOM, "benchmark_name": "terminal-bench", "reference_rubric": "strict",
    "atif_criteria_source": "custom", "subagent_aggregation": SubagentAggregation.SEPARATE, "completion_threshold": 0.9,
    "failure_threshold": 0.1, "atif_scored_frames": "agent", "atif_copied_context": "scored",
}
"""A different value for every run-level guarded field."""


def _changed(results: EvaluationResults, field: str) -> EvaluationResults:
    value = _CHANGED[field]
    if field.startswith("judge."):
        judge = {**results.provenance["judge"], field.removeprefix("judge."): value}
        return results.model_copy(update={"provenance": {**results.provenance, "judge": judge}})
    if field == "template_hashes":
        return results.model_copy(update={"provenance": {**results.provenance, "template_hashes": value}})
    return results.model_copy(update={"parameters": results.parameters.model_copy(update={field: value})})


def test_every_guarded_field_has_a_case() -> None:
    assert set(_CHANGED) | set(NODE_FIELDS) == set(GUARDED_FIELDS)


@pytest.mark.parametrize("field", sorted(_CHANGED))
def test_each_run_level_field_is_refused_by_name(runs: dict[str, Path], field: str) -> None:
    base = read_results(runs["base"])
    (difference,) = run_differences(base, _changed(base, field))
    assert difference.field == field and difference.candidate == _CHANGED[field]
    with pytest.raises(InputError) as refused:
        check_allowed([difference], ())
    assert refused.value.message.startswith(f"runs are not comparable: {field} differs: baseline ")
    assert f"--allow-different {field}" in refused.value.message and "\n" not in refused.value.message
    assert check_allowed([difference], [field]) == [difference]


@pytest.mark.parametrize("field", NODE_FIELDS)
def test_each_per_task_field_is_refused_by_name(runs: dict[str, Path], field: str) -> None:
    base = read_results(runs["base"])
    node = base.nodes[0]
    assert node.criteria is not None
    other = node.model_copy(update={"criteria": {**node.criteria, field: "changed"}})
    (difference,) = node_differences([("a.json", node, other), ("b.json", base.nodes[1], base.nodes[1])])
    assert (difference.field, difference.candidate, difference.pairs, difference.example) == (
        field, "changed", 1, "a.json")
    with pytest.raises(InputError, match=f"^runs are not comparable: {field} differs \\(pair a.json; 1 pair"):
        check_allowed([difference], ())


def test_identical_runs_differ_in_nothing(runs: dict[str, Path]) -> None:
    base, again = read_results(runs["base"]), read_results(runs["again"])
    assert run_differences(base, again) == []
    assert node_differences([(n.node_id, n, m) for n, m in zip(base.nodes, again.nodes, strict=True)]) == []


def test_field_names_are_checked() -> None:
    check_field_names(["judge.model", "criteria_hash"])
    with pytest.raises(ConfigError, match="not a guarded field"):
        check_field_names(["model"])


def test_a_shard_is_refused(runs: dict[str, Path]) -> None:
    with pytest.raises(InputError, match=r"shard 0/2 of job .*merge the shards first") as refused:
        read_side(runs["shard0"], "candidate")
    assert refused.value.code == "shard_not_merged"


def test_a_folder_of_another_kind_is_refused(tmp_path: Path) -> None:
    from tracegrade.runs import JobStatus, RunFolder

    folder = RunFolder(tmp_path / "suite", kind="suite-run", job_id="s-1")
    folder.write_json("report.json", {})
    folder.finish(JobStatus.COMPLETED)
    with pytest.raises(InputError, match="a suite-run run folder, not an ATIF judge run"):
        read_side(tmp_path / "suite", "baseline")


def test_a_file_that_is_not_judge_results_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    from tracegrade.runs import JobStatus, RunFolder

    folder = RunFolder(tmp_path / "odd", kind="atif-judge", job_id="odd")
    folder.write_json("evaluation_results.json", {"format": "something-else/1"})
    folder.finish(JobStatus.COMPLETED)
    with pytest.raises(InputError, match=r"not a tracegrade evaluation_results\.json \(.* - at `\$\.format`\)$"):
        read_side(tmp_path / "odd", "baseline")
