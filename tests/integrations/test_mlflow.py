from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from mlflow.tracking import MlflowClient

from tracegrade.atif import PROMPT_VERSION, EvaluationResults, parse_parameters
from tracegrade.atif._job import JudgeTarget, run_atif_job
from tracegrade.atif._run import JobContext
from tracegrade.integrations.mlflow import MAX_PARAM_CHARS, default_tracking_uri, log_run, param_value, run_metrics
from tracegrade.judge.testing import ScriptedJudgeServer

ARTIFACTS = ["atif/evaluation_results.json", "atif/report.html", "atif/steps.parquet", "atif/summary.json"]


async def scored(corpus: Path, judge: ScriptedJudgeServer, out: Path) -> tuple[EvaluationResults, dict[str, Path]]:
    options, criteria = parse_parameters({"trajectory_path": str(corpus), "completion_threshold": 0.6})
    target = JudgeTarget(url=judge.base_url, model="scripted-judge")
    return await run_atif_job([corpus], options, criteria, target, JobContext("run-7"), out_dir=out, cache_path=None)


async def test_a_run_is_logged_to_a_sqlite_store_beside_the_working_directory(
    corpus: Path, judge: ScriptedJudgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results, artifacts = await scored(corpus, judge, tmp_path / "run")
    monkeypatch.chdir(tmp_path)
    assert default_tracking_uri() == f"sqlite:///{tmp_path / 'mlruns.db'}"

    run_id = log_run(results, artifacts)

    client = MlflowClient(default_tracking_uri())
    run = client.get_run(run_id)
    assert run.info.run_name == "run-7" and run.info.status == "FINISHED"
    params = run.data.params
    assert params["atif_prompt_version"] == PROMPT_VERSION and params["atif_judge"] == "scripted-judge"
    assert params["atif_scored_frames"] == "all" and params["atif_complete"] == "true"
    assert params["completion_threshold"] == "0.6" and params["max_judge_requests"] == ""
    assert run.data.metrics == {
        "atif_overall_score": 0.75,
        "atif_trajectory_count": 4.0,
        "atif_failure_categorization_rate": 1.0,
        "overall_score": 0.75,
        "num_examples_evaluated": 4.0,
        "judge_input_tokens": 2300.0,  # as the scripted judge reports them (100 in, 20 out per answer)
        "judge_output_tokens": 460.0,  # its answers say nothing of a prompt cache: no cached-token metric
    }
    assert sorted(a.path for a in client.list_artifacts(run_id, "atif")) == ARTIFACTS
    assert (tmp_path / "mlartifacts").is_dir()
    downloaded = Path(client.download_artifacts(run_id, "atif/summary.json", str(tmp_path / "dl")))
    assert orjson.loads(downloaded.read_bytes())["job_id"] == "run-7"


def test_the_tracking_uri_comes_from_the_environment_first() -> None:
    assert default_tracking_uri({"MLFLOW_TRACKING_URI": "http://mlflow:5000"}) == "http://mlflow:5000"


def test_param_values_are_mlflow_text() -> None:
    assert [param_value(v) for v in (None, True, False, 0.5, 3, "x")] == ["", "true", "false", "0.5", "3", "x"]
    assert param_value({"b": 1, "a": [1, None]}) == '{"a":[1,null],"b":1}'
    assert len(param_value("y" * 10_000)) == MAX_PARAM_CHARS


async def test_a_missing_score_is_left_out_not_logged_as_zero(
    corpus: Path, judge: ScriptedJudgeServer, tmp_path: Path
) -> None:
    results, _ = await scored(corpus, judge, tmp_path / "run")
    unscored = results.summary.model_copy(
        update={"atif_overall_score": None, "overall_score": None, "atif_failure_categorization_rate": None}
    )
    metrics = run_metrics(results.model_copy(update={"summary": unscored}))
    assert metrics == {"atif_trajectory_count": 4.0, "num_examples_evaluated": 4.0,
                       "judge_input_tokens": 2300.0, "judge_output_tokens": 460.0}
