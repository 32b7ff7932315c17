"""One scoring job with I/O: the judge it opens, its cache, and the run folder it writes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.atif.scripted import CUSTOM, trajectory, write
from tracegrade.atif import EvaluationResults, JobContext, JudgeTarget, ScoringOptions, parse_parameters, run_atif_job
from tracegrade.atif._job import effective_options, judge_settings
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
