from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tracegrade.cli._app import app, dabench_main, run_app
from tracegrade.cli._dabench import dabench_app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dabench"


def example_args(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "eval-v2",
        "demo-run",
        "--runs-root",
        str(EXAMPLE / "runs"),
        "--data-root",
        str(EXAMPLE / "data"),
        "-o",
        str(tmp_path),
        *extra,
    ]


def test_eval_v2_writes_tables_and_prints_a_summary_at_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert run_app(dabench_app, example_args(tmp_path)) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "task_metrics.csv").is_file() and (tmp_path / "manifest.json").is_file()
    assert "demo-run" in out and "Mean score" in out
    assert "66.7%" in out  # 2 of 3 tasks executed; 2 of 3 answers correct
    assert max(len(line) for line in out.splitlines()) <= 80


def test_tracegrade_dabench_eval_v2_and_verbose_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["dabench", *example_args(tmp_path, "--mode", "research")]) == 0
    assert "come with eval-v2 part 2" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval-v2", "no-such-run"], "no such folder"),
        (["eval-v2", str(EXAMPLE / "runs" / "demo-run"), "--lambda", "-1"], "--lambda"),
        (["eval-v2", str(EXAMPLE / "runs" / "demo-run"), "--data-root", "/nonexistent"], "--data-root"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(dabench_app, args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_dabench_entry_point_keeps_version(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["dabench", "--version"])
    with pytest.raises(SystemExit) as exited:
        dabench_main()
    assert exited.value.code == 0 and "dabench (tracegrade" in capsys.readouterr().out
