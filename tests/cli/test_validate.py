from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from rich.console import Console

from tests.atif.helpers import trajectory, write
from tracegrade.atif import LoadOptions, load_trajectories
from tracegrade.cli._app import app, run_app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "atif"


def test_validate_examples_json_exit_0(capsys: object) -> None:
    code = run_app(app, ["validate", str(EXAMPLES), "--format", "json"])
    out = orjson.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert code == 0 and out["valid"] is True
    roles = {Path(f["path"]).name: f["role"] for f in out["files"]}
    assert roles == {
        "trajectory.json": "root",
        "trajectory.cont-1.json": "continuation",
        "chart-agent.json": "subagent",
    }


def test_validate_invalid_exit_2(tmp_path: Path, capsys: object) -> None:
    (tmp_path / "bad.json").write_text("{")
    assert run_app(app, ["validate", str(tmp_path)]) == 2
    assert "invalid" in capsys.readouterr().out  # type: ignore[attr-defined]


def test_validate_warnings_listed(shared_corpus: Path, capsys: object) -> None:
    code = run_app(app, ["validate", str(shared_corpus / "atif/harbor/trials/rfc0001-example"), "--format", "json"])
    out = orjson.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert code == 0 and any("logprobs" in w for w in out["files"][0]["warnings"])


def test_missing_path_one_line_exit_2(capsys: object) -> None:
    assert run_app(app, ["validate", "/no/such/place"]) == 2
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert err.strip() == "error: /no/such/place: no such file or directory"


def test_usage_error_exit_2() -> None:
    assert run_app(app, ["validate", "--format", "xml", str(EXAMPLES)]) == 2


def _long_names(tmp_path: Path) -> Path:
    for name in ("a-long-folder-name-of-the-first-run", "a-long-folder-name-of-the-second-run"):
        write(tmp_path / name / "trajectory.json", trajectory())
    write(tmp_path / "bad.json", b"{")
    return tmp_path


def test_at_80_columns_every_document_keeps_its_whole_path_and_every_fact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert run_app(app, ["validate", str(_long_names(tmp_path))]) == 2
    lines = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    assert max(len(line) for line in lines) <= 80 and not any("…" in line for line in lines)
    start = lines.index("  a-long-folder-name-of-the-first-run/trajectory.json")
    assert lines[start : start + 6] == [
        "  a-long-folder-name-of-the-first-run/trajectory.json",
        "    valid, root, ATIF 1.7, 2 steps, agent a, 0 subagents",
        "  a-long-folder-name-of-the-second-run/trajectory.json",
        "    valid, root, ATIF 1.7, 2 steps, agent a, 0 subagents",
        "  bad.json",
        "    invalid, invalid_json",
    ]
    assert "invalid: bad.json:1:2: unexpected end of data" in lines


def test_wide_console_shows_every_column(tmp_path: Path) -> None:
    from tracegrade.cli._validate import render_validation

    result = load_trajectories([_long_names(tmp_path)], LoadOptions(strict=False), reports=True, trees=False)
    console = Console(width=160, file=io.StringIO(), color_system=None)
    render_validation(result, [tmp_path], console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    header = next(line for line in text.splitlines() if "verdict" in line).split()
    assert header == ["file", "verdict", "role", "ATIF", "steps", "agent", "subagents", "notes"]
    assert "a-long-folder-name-of-the-first-run/trajectory.json" in text
    assert "Hidden" not in text and max(len(line) for line in text.splitlines()) <= 160


def test_warnings_only_with_details(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "t.json", trajectory(final_metrics={"total_steps": 5}))
    assert run_app(app, ["validate", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "total_steps is 5" not in out and "1 warning in 1 document; --details lists them" in out
    assert run_app(app, ["validate", str(tmp_path), "--details"]) == 0
    details = capsys.readouterr().out
    assert "warning: /final_metrics/total_steps is 5 but the trajectory has 2 steps" in details
    assert "  agent a, ATIF v1.7, 2 steps" in details


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")
def test_fifo_on_the_command_line_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    tool = Path(sys.executable).parent / "tracegrade"
    done = subprocess.run([tool, "validate", str(fifo)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {fifo}: not a regular file") and done.stderr.count("\n") == 1


def test_empty_directory_is_invalid_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("no trajectories here")
    assert run_app(app, ["validate", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"error: {tmp_path}: no trajectory files (.json, .jsonl) in this directory"


@pytest.mark.parametrize("depth", [300, 1000])
def test_deep_nesting_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int) -> None:
    """Issue 23 item 5: 256 to 1,024 levels ended in a traceback."""
    document = trajectory()
    document["agent"]["extra"] = "DEEP"
    (tmp_path / "t.json").write_bytes(orjson.dumps(document).replace(b'"DEEP"', b"[" * depth + b"]" * depth))
    assert run_app(app, ["validate", str(tmp_path / "t.json")]) == 2
    captured = capsys.readouterr()
    assert "invalid: t.json: " in captured.out and "Traceback" not in captured.err
    assert "JSON nesting is deeper than 254 levels" in " ".join(captured.out.split())


def test_names_from_the_file_reach_the_terminal_with_control_characters_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = trajectory(agent={"name": "\x1b[2J\x1b[Hevil", "version": "1"}, notes="x")
    write(tmp_path / "a\x1b[31m.json", doc)
    write(tmp_path / "bad\x1b]0;t\x07.json", b"{")
    assert run_app(app, ["validate", str(tmp_path), "--details"]) == 2
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out and "\x07" not in captured.out and "\x1b" not in captured.err
    assert "\\x1b[2J" in captured.out and "a\\x1b[31m.json" in captured.out


def test_an_error_message_quoting_a_file_name_escapes_its_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_app(app, ["validate", str(tmp_path / "no\x1b[2Jsuch")]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "no\\x1b[2Jsuch" in err
