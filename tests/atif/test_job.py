"""One scoring job with I/O: the judge it opens, its cache, and the run folder it writes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import tracegrade.judge
from tests.atif.scripted import CUSTOM, trajectory, write
from tracegrade.atif import (
    EvaluationResults,
    JobContext,
    JobOutcome,
    JudgeJob,
    JudgeTarget,
    ScoringOptions,
    otlp_meter_provider,
    parse_parameters,
    run_atif_job,
    run_judge_job,
)
from tracegrade.atif._job import _OTLP_ENDPOINTS, effective_options, judge_settings
from tracegrade.errors import ConfigError
from tracegrade.judge import LOCAL_MAX_CONTEXT_BYTES, JudgeOptions, ResponseFormat
from tracegrade.judge.testing import ScriptedJudgeServer


def job(server: ScriptedJudgeServer, folder: Path, context: JobContext, *, out: Path | None = None,
        cache: Path | None = None, **params: Any) -> tuple[EvaluationResults, dict[str, Path]]:
    options, criteria = parse_parameters({**CUSTOM, **params})
    target = JudgeTarget(url=server.base_url, model="scripted")
    return asyncio.run(run_atif_job([folder], options, criteria, target, context, out_dir=out, cache_path=cache))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write(tmp_path / "in" / "a.json", trajectory("Fix it SCORE:0.8", "SCORE:0.6"))
    return tmp_path / "in"


def test_the_judge_runs_with_the_endpoint_of_its_target_and_the_jobs_judge_options() -> None:
    options, _ = parse_parameters({"concurrency_limit": 3, "judge_seed": 5, "judge_max_attempts": 1})
    target = JudgeTarget(url="http://judge:8000/v1", model="m", api_key_env="KEY",
                         response_format=ResponseFormat.NONE)
    settings = judge_settings(target, options)
    assert (settings.base_url, settings.model, settings.api_key_env) == ("http://judge:8000/v1", "m", "KEY")
    assert settings.response_format is ResponseFormat.NONE
    assert settings.options is options  # the job's options are the judge's: nothing is copied across
    assert (settings.options.concurrency_limit, settings.options.judge_seed) == (3, 5)
    with pytest.raises(ConfigError, match="--judge-url and --judge-model"):
        judge_settings(JudgeTarget(model="m"), options)


def test_the_local_judge_gets_a_budget_it_can_hold_unless_one_is_given() -> None:
    local = JudgeTarget(local=True)
    assert effective_options(ScoringOptions(), local).max_context_bytes == LOCAL_MAX_CONTEXT_BYTES
    given = ScoringOptions(max_context_bytes=4096)
    assert effective_options(given, local).max_context_bytes == 4096
    assert effective_options(ScoringOptions(), JudgeTarget(url="u", model="m")).max_context_bytes == 65536
    assert JudgeOptions().max_context_bytes == 65536


def test_a_job_writes_its_run_folder(judge_server: ScriptedJudgeServer, folder: Path, tmp_path: Path) -> None:
    results, artifacts = job(judge_server, folder, JobContext("job-1"), out=tmp_path / "run")
    assert results.job_id == "job-1" and results.summary.job_status == "completed"
    assert sorted(artifacts) == ["evaluation_results.json", "report.html", "steps.parquet", "summary.json"]
    assert all(path.parent == tmp_path / "run" and path.exists() for path in artifacts.values())
    assert (tmp_path / "run" / "manifest.json").exists()
    assert job(judge_server, folder, JobContext("job-2"))[1] == {}  # no folder asked for, none written


def test_whether_the_judge_is_local_comes_from_the_target(judge_server: ScriptedJudgeServer, folder: Path) -> None:
    results, _ = job(judge_server, folder, JobContext("j", local_judge=True), scoring_mode="auto", custom_rubric=None)
    assert results.parameters.atif_criteria_source == "derived_by_judge"  # an endpoint judge derives criteria


def test_a_rerun_with_the_same_cache_asks_the_judge_nothing(
    judge_server: ScriptedJudgeServer, folder: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite3"
    first, _ = job(judge_server, folder, JobContext("j"), cache=cache)
    calls = judge_server.count
    second, _ = job(judge_server, folder, JobContext("j"), cache=cache)
    assert judge_server.count == calls == 2
    assert second.summary.judge["cache_hits"] == 2 and second.nodes == first.nodes


def test_the_local_judge_runs_and_records_the_options_it_fixes() -> None:
    options = effective_options(ScoringOptions(judge_max_tokens=1024, concurrency_limit=10), JudgeTarget(local=True))
    assert (options.judge_max_tokens, options.judge_seed, options.concurrency_limit) == (512, 0, 1)
    assert options.judge_timeout_seconds == 300.0 and options.judge_temperature == 0.0


def judge_job(server_url: str, folder: Path, out: Path, **fields: Any) -> JudgeJob:
    parameters = {**CUSTOM, "trajectory_path": str(folder)}
    options, criteria = parse_parameters(parameters)
    target = JudgeTarget(url=server_url, model="scripted")
    return JudgeJob((folder,), options, criteria, target, out, parameters, **fields)


def test_a_judge_job_that_scores_everything_passes(judge_server: ScriptedJudgeServer, folder: Path,
                                                   tmp_path: Path) -> None:
    job = judge_job(judge_server.base_url, folder, tmp_path / "run")
    run = run_judge_job(job)
    assert (run.outcome, run.message) == (JobOutcome.PASSED, None)
    assert run.results.job_id == job.identity() and run.artifacts["summary.json"].parent == tmp_path / "run"
    assert judge_server.count == 2


def test_a_score_below_the_threshold_says_so(judge_server: ScriptedJudgeServer, folder: Path, tmp_path: Path) -> None:
    run = run_judge_job(judge_job(judge_server.base_url, folder, tmp_path / "run", fail_under=0.9))
    assert run.outcome is JobOutcome.BELOW_THRESHOLD
    assert run.message == f"collection score {run.results.summary.atif_overall_score:.4f} is below --fail-under 0.9"


def test_an_unreachable_judge_fails_the_job_naming_it_without_credentials(folder: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    job = judge_job(f"http://user:secret@127.0.0.1:{port}/v1", folder, tmp_path / "run")
    job = JudgeJob(job.paths, job.options.model_copy(update={"judge_max_attempts": 1}), job.criteria, job.target,
                   job.output, job.parameters)
    run = run_judge_job(job)
    assert run.outcome is JobOutcome.FAILED
    assert run.message is not None and "unreachable (transport_error:" in run.message and "secret" not in run.message


def test_the_job_id_comes_from_the_inputs_parameters_and_judge_unless_given(folder: Path, tmp_path: Path) -> None:
    one = judge_job("http://127.0.0.1:1/v1", folder, tmp_path / "a")
    assert one.identity() == judge_job("http://127.0.0.1:1/v1", folder, tmp_path / "b").identity()
    assert one.identity() != judge_job("http://127.0.0.1:2/v1", folder, tmp_path / "a").identity()
    assert judge_job("http://127.0.0.1:1/v1", folder, tmp_path / "a", job_id="mine").identity() == "mine"


def test_a_run_folder_inside_an_input_folder_is_refused(folder: Path) -> None:
    with pytest.raises(ConfigError, match="is inside the input folder"):
        judge_job("http://127.0.0.1:1/v1", folder, folder / "run")


def test_no_otlp_endpoint_means_no_sdk_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    monkeypatch.setattr(tracegrade.judge, "configure_meter_provider", lambda: made.append("sdk") or "provider")
    for name in _OTLP_ENDPOINTS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "  ")
    assert otlp_meter_provider() is None and made == []
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://127.0.0.1:4318/v1/metrics")
    assert otlp_meter_provider() == "provider" and made == ["sdk"]
