"""One scoring job without files: which roots are scored, which criteria, and what is recorded."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.atif.delayed import marker_judge
from tests.atif.scripted import CUSTOM, trajectory, write
from tracegrade.atif import EvaluationResults, JobContext, parse_parameters, score_paths
from tracegrade.atif._run import criteria_source
from tracegrade.atif.scoring import RunProgress, ScoringEngine
from tracegrade.judge.testing import FakeJudge
from tracegrade.runs import Shard


def score(paths: list[Path], context: JobContext | None = None, judge: FakeJudge | None = None, /,
          **params: Any) -> EvaluationResults:
    options, criteria = parse_parameters(params)
    judge = judge if judge is not None else marker_judge()
    return asyncio.run(score_paths(paths, options, criteria, judge, context or JobContext("j")))


@pytest.fixture
def three(tmp_path: Path) -> Path:
    for name in ("c", "a", "b"):
        write(tmp_path / f"{name}.json", trajectory(f"Task {name} SCORE:0.9", "SCORE:0.7"))
    return tmp_path


def test_num_examples_scores_the_first_roots_by_path(three: Path) -> None:
    results = score([three], num_examples=2, **CUSTOM)
    assert [n.node_id for n in results.nodes] == ["a.json", "b.json"]
    assert results.parameters.num_examples == 2


def test_shards_split_the_roots_and_each_keeps_the_inputs_of_its_own(three: Path) -> None:
    shards = [score([three], JobContext("j", shard=Shard(i, 2)), **CUSTOM) for i in range(2)]
    assert sorted(n.node_id for s in shards for n in s.nodes) == ["a.json", "b.json", "c.json"]
    for result in shards:
        assert result.shard is not None and {i.path.rsplit("/", 1)[-1] for i in result.inputs} == {
            n.node_id for n in result.nodes
        }


def test_an_empty_shard_completes_with_zero_roots(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory("SCORE:0.9"))
    shards = [Shard(i, 3) for i in range(3)]
    empty = next(s for s in shards if not s.owns("a.json"))  # the root's id is its path in the input
    results = score([tmp_path], JobContext("j", shard=empty), **CUSTOM)
    assert results.summary.job_status == "completed" and results.summary.failure_reason is None
    assert results.summary.counts["roots"] == 0 and results.summary.atif_overall_score is None


def test_the_context_names_the_job_and_watches_it(three: Path) -> None:
    progress, engines = RunProgress(), list[ScoringEngine]()
    results = score([three], JobContext("job-9", progress=progress, on_engine=engines.append), **CUSTOM)
    assert results.job_id == "job-9" and len(engines) == 1
    assert (progress.steps_total, progress.steps_done) == (6, 6)


def test_criteria_derivation_uses_the_same_request_budget_as_scoring(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory("Summarise this: " + "x" * 5000 + " SCORE:0.9", "SCORE:0.9"))
    write(tmp_path / "b.json", trajectory("Short task SCORE:0.9"))
    judge = marker_judge()  # its own settings allow 64 KiB requests; the job's budget is 4 KiB
    results = score([tmp_path], None, judge, max_context_bytes=4096, partial_result_policy="skip_failed_trajectory")
    nodes = {n.node_id: n for n in results.nodes}
    assert nodes["a.json"].error_code == "context_overflow" and nodes["b.json"].status == "scored"
    assert [r.purpose for r in judge.requests].count("derive") == 1
    assert results.parameters.max_context_bytes == 4096


def test_with_the_local_judge_auto_mode_uses_the_generic_rubric_and_label_probabilities(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory("Do it SCORE:1.0", "SCORE:0.25"))
    judge = marker_judge()
    results = score([tmp_path], JobContext("j", local_judge=True), judge)
    assert [r.purpose for r in judge.requests] == ["score", "score", "categorize"]  # no derivation
    first = judge.requests[0]  # the local judge's label question, scored from token probabilities
    assert first.top_logprobs is not None and list(first.response_schema["properties"]) == ["problem"]
    assert judge.requests[2].response_schema["properties"]["rationale"]["maxLength"] == 400  # coarse
    (node,) = results.nodes
    assert [s.criterion_scores for s in node.steps] == [{"step_quality": 1.0}, {"step_quality": 0.25}]
    assert node.own_score == pytest.approx(0.625) and node.criteria is not None
    assert node.criteria["rubric_source"] == "local_judge_generic_rubric"
    assert results.parameters.atif_criteria_source == "local_judge_generic_rubric"
    assert score([tmp_path]).parameters.atif_criteria_source == "derived_by_judge"


@pytest.mark.parametrize(
    ("parameters", "local", "source"),
    [({}, False, "derived_by_judge"), ({}, True, "local_judge_generic_rubric"), (CUSTOM, False, "custom"),
     (CUSTOM, True, "custom"), ({"scoring_mode": "benchmark", "benchmark_name": "terminal-bench"}, True, "benchmark")],
)
def test_the_criteria_source_names_where_the_criteria_came_from(
    parameters: dict[str, Any], local: bool, source: str
) -> None:
    _, criteria = parse_parameters(parameters)
    assert criteria_source(criteria, local) == source


def test_the_run_records_its_options_criteria_judge_and_copied_context_treatment(tmp_path: Path) -> None:
    doc = trajectory("SCORE:0.2", "SCORE:0.4")
    doc["steps"][0]["is_copied_context"] = True
    write(tmp_path / "a.json", doc)
    kept = score([tmp_path], failure_threshold=0.3, **CUSTOM)
    recorded = kept.parameters
    assert (recorded.failure_threshold, recorded.score_copied_context, recorded.atif_judge) == (0.3, False, "fake")
    assert (recorded.scoring_mode, recorded.custom_rubric_source) == ("custom", "custom_rubric")
    assert recorded.atif_copied_context == kept.provenance["copied_context"] == "kept_not_scored"
    assert kept.provenance["judge"] == marker_judge().provenance()
    literal = score([tmp_path], score_copied_context=True, **CUSTOM).parameters
    assert literal.atif_copied_context == "scored" and literal.score_copied_context
