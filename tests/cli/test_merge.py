from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade.atif import EvaluationResults, write_artifacts
from tracegrade.cli._app import app, run_app
from tracegrade.runs import JobStatus


def test_cli_merges_run_folders(
    runs: tuple[EvaluationResults, list[EvaluationResults]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _whole, shards = runs
    folders = [
        str(write_artifacts(s, tmp_path / f"s{i}")["evaluation_results.json"].parent) for i, s in enumerate(shards)
    ]
    folders[2] += "/evaluation_results.json"  # a results file works as well as its folder
    assert run_app(app, ["merge", *folders, "-o", str(tmp_path / "merged")]) == 0
    assert sorted(p.name for p in (tmp_path / "merged").iterdir()) == [
        "evaluation_results.json",
        "manifest.json",
        "report.html",
        "steps.parquet",
        "summary.json",
    ]
    assert "merged 3 shards of job-m" in capsys.readouterr().out


def test_cli_refuses_an_incomplete_set_in_one_line(
    runs: tuple[EvaluationResults, list[EvaluationResults]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, shards = runs
    folder = write_artifacts(shards[0], tmp_path / "s0")["evaluation_results.json"].parent
    assert run_app(app, ["merge", str(folder), str(tmp_path / "nowhere"), "-o", str(tmp_path / "m")]) == 2
    assert run_app(app, ["merge", str(folder), "-o", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "nowhere: no evaluation_results.json there" in err and "missing shard(s) 1/3, 2/3" in err
    assert not (tmp_path / "m").exists()


def shard_folders(shards: list[EvaluationResults], tmp_path: Path) -> list[str]:
    return [str(write_artifacts(s, tmp_path / f"s{i}")["evaluation_results.json"].parent) for i, s in enumerate(shards)]


def test_quiet_prints_nothing(
    runs: tuple[EvaluationResults, list[EvaluationResults]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_app(app, ["merge", *shard_folders(runs[1], tmp_path), "-o", str(tmp_path / "m"), "--quiet"]) == 0
    assert capsys.readouterr().out == "" and (tmp_path / "m" / "manifest.json").is_file()


@pytest.mark.parametrize(("status", "code"), [("failed", 4), ("interrupted", 130)])
def test_a_merged_job_that_did_not_complete_exits_with_its_code_and_keeps_the_folder(
    runs: tuple[EvaluationResults, list[EvaluationResults]], tmp_path: Path, status: str, code: int
) -> None:
    shards = list(runs[1])
    ended = {"job_status": JobStatus(status), "failure_reason": "fail_fast: node x"}
    summary = shards[1].summary.model_copy(update=ended)
    shards[1] = shards[1].model_copy(update={"summary": summary})
    assert run_app(app, ["merge", *shard_folders(shards, tmp_path), "-o", str(tmp_path / "m")]) == code
    assert (tmp_path / "m" / "evaluation_results.json").is_file()
