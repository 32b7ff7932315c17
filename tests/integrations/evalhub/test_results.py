from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.atif.scripted import judge_rule
from tests.integrations.conftest import AdapterFactory, run, spec
from tracegrade.atif import PROMPT_VERSION, EvaluationResults, parse_parameters
from tracegrade.atif._job import JudgeTarget, run_atif_job
from tracegrade.atif._run import JobContext
from tracegrade.errors import TracegradeError
from tracegrade.integrations.evalhub import check_outcome, evaluation_metadata, job_metrics, job_results
from tracegrade.judge.testing import ScriptedJudgeServer


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> EvaluationResults:
    from tests.conftest import EXAMPLES

    options, criteria = parse_parameters({})

    async def score() -> EvaluationResults:
        with ScriptedJudgeServer(judge_rule()) as judge:
            target = JudgeTarget(url=judge.base_url, model="m")
            done, _ = await run_atif_job(
                [EXAMPLES / "atif"], options, criteria, target, JobContext("j"), out_dir=None, cache_path=None
            )
        return done

    return asyncio.run(score())


def with_summary(results: EvaluationResults, **changes: object) -> EvaluationResults:
    return results.model_copy(update={"summary": results.summary.model_copy(update=changes)})


def test_a_null_score_is_never_reported(results: EvaluationResults) -> None:
    unscored = with_summary(results, atif_overall_score=None, overall_score=None, atif_failure_categorization_rate=None)
    assert [m.metric_name for m in job_metrics(unscored)] == ["atif_trajectory_count", "num_examples_evaluated"]
    with pytest.raises(TracegradeError) as caught:
        check_outcome(unscored)
    assert caught.value.code == "no_score"


@pytest.mark.parametrize(("status", "code"), [("failed", "job_failed"), ("interrupted", "job_interrupted")])
def test_unfinished_runs_are_not_reported_as_results(results: EvaluationResults, status: str, code: str) -> None:
    with pytest.raises(TracegradeError) as caught:
        check_outcome(with_summary(results, job_status=status, failure_reason="fail_fast: node a failed (timeout)"))
    assert caught.value.code == code


def test_metadata_records_what_produced_the_scores(make_adapter: AdapterFactory, corpus: Path) -> None:
    meta = run(make_adapter, {"trajectory_path": str(corpus), "completion_threshold": 0.6}).evaluation_metadata

    assert meta["atif_prompt_version"] == PROMPT_VERSION and meta["atif_judge"] == "scripted-judge"
    assert meta["atif_scored_frames"] == "all" and meta["atif_complete"] is True
    assert meta["atif_copied_context"] == "kept_not_scored" and meta["atif_score_copied_context"] is False
    assert meta["atif_criteria_source"] == "derived_by_judge"
    assert meta["atif_scoring_mode"] == "auto" and meta["atif_subagent_aggregation"] == "flat"
    assert meta["atif_completion_threshold"] == 0.6 and meta["atif_failure_threshold"] == 0.5
    assert meta["atif_judge_requests"] == meta["atif_judge_successes"] > 0 and meta["atif_judge_input_tokens"] > 0
    assert meta["atif_steps_scored"] == 19 and meta["atif_failure_candidates"] == 0
    assert meta["atif_failure_categories"] == {} and meta["atif_job_status"] == "completed"
    assert all(key.startswith("atif_") for key in meta)


def test_every_metric_of_a_scored_run_is_reported_with_its_type(results: EvaluationResults) -> None:
    reported = {m.metric_name: (m.metric_value, m.metric_type) for m in job_metrics(results)}
    summary = results.summary
    assert reported == {
        "atif_overall_score": (summary.atif_overall_score, "float"),
        "atif_trajectory_count": (summary.atif_trajectory_count, "int"),
        "atif_failure_categorization_rate": (summary.atif_failure_categorization_rate, "float"),
        "overall_score": (summary.overall_score, "float"),
        "num_examples_evaluated": (summary.num_examples_evaluated, "int"),
    }
    check_outcome(results)  # a completed, scored run is reported


def test_the_job_results_carry_the_specs_identity_and_the_run(results: EvaluationResults) -> None:
    done = job_results(spec(id="job-9", benchmark_index=2), results, duration_seconds=1.23456)
    assert (done.id, done.benchmark_id, done.benchmark_index, done.model_name) == (
        "job-9", "atif_trajectory_default", 2, "judge-model")
    assert done.duration_seconds == 1.235 and done.overall_score == results.summary.overall_score
    assert done.evaluation_metadata == evaluation_metadata(results)
    assert set(done.additional_info) == {"atif_prompt_version", "atif_judge", "atif_scored_frames", "atif_complete"}
