from __future__ import annotations

import asyncio

import pytest
from evalhub.adapter import JobSpec

from tests.atif.scripted import judge_rule
from tracegrade.atif import EvaluationResults, parse_parameters
from tracegrade.atif._job import JudgeTarget, run_atif_job
from tracegrade.atif._run import JobContext
from tracegrade.errors import ConfigError, TracegradeError
from tracegrade.integrations.evalhub import check_outcome, failure_message, job_metrics, job_parameters, judge_target
from tracegrade.judge.testing import ScriptedJudgeServer


def spec(**fields: object) -> JobSpec:
    document: dict[str, object] = {
        "id": "j",
        "provider_id": "atif",
        "benchmark_id": "atif_trajectory_default",
        "benchmark_index": 0,
        "model": {"url": "http://judge:8000/v1", "name": "judge-model"},
        "parameters": {},
        "callback_url": "http://x",
    }
    return JobSpec.model_validate({**document, **fields})


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


def test_num_examples_goes_back_into_the_parameters() -> None:
    assert job_parameters(spec(parameters={"scoring_mode": "auto"}, num_examples=3)) == {
        "scoring_mode": "auto",
        "num_examples": 3,
    }
    assert job_parameters(spec(parameters={"num_examples": 2}, num_examples=3))["num_examples"] == 2


def test_the_judge_is_the_jobs_model() -> None:
    target = judge_target(spec(), environ={})
    assert (target.url, target.model, target.api_key_env) == ("http://judge:8000/v1", "judge-model", None)


def test_a_key_variable_can_be_named_by_the_provider_environment() -> None:
    target = judge_target(spec(), environ={"TRACEGRADE_JUDGE_API_KEY_ENV": "OPENAI_API_KEY"})
    assert target.api_key_env == "OPENAI_API_KEY"


def test_kubernetes_mode_leaves_the_credential_to_the_sidecar() -> None:
    target = judge_target(spec(model={"url": "", "name": "m"}), environ={"EVALHUB_MODE": "k8s"})
    assert target.url == "http://localhost:8080" and target.api_key_env is None


def test_local_mode_needs_a_judge_url() -> None:
    with pytest.raises(ConfigError, match=r"model\.url"):
        judge_target(spec(model={"url": "", "name": "m"}), environ={})


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


def test_failure_messages_are_one_safe_line() -> None:
    message = failure_message(TracegradeError("judge said\nBearer abc.def at https://u:p@h/v1", code="judge_error"))
    assert message.message == "judge_error: judge said Bearer *** at https://h/v1"
    assert failure_message(ValueError("secret")).message == (
        "internal_error: unexpected ValueError in the adapter (see the job log)"
    )
    assert len(failure_message(TracegradeError("x" * 2000)).message) <= 500
