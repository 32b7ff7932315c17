from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer

import tracegrade
from tracegrade.cli._app import app, dabench_main, main, run_app
from tracegrade.cli._help import App
from tracegrade.errors import MissingDependencyError, ThresholdNotMetError


def test_dabench_entry_point_keeps_version(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["dabench", "--version"])
    with pytest.raises(SystemExit) as exited:
        dabench_main()
    assert exited.value.code == 0 and "dabench (tracegrade" in capsys.readouterr().out


def test_the_entry_point_exits_with_the_command_s_code_and_frozen_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a command left is frozen on the way out, so the interpreter's last collection does not walk it."""
    frozen: list[bool] = []
    monkeypatch.setattr("tracegrade.cli._app.skip_final_collection", lambda: frozen.append(True))
    monkeypatch.setattr(sys, "argv", ["tracegrade", "merge"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2 and frozen == [True]


def test_console_scripts_version_and_help() -> None:
    bindir = Path(sys.executable).parent
    out = subprocess.run([bindir / "tracegrade", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("tracegrade ")
    helped = subprocess.run([bindir / "tracegrade", "validate", "--help"], capture_output=True, text=True, check=True)
    assert "Exit codes" in helped.stdout
    dab = subprocess.run([bindir / "dabench", "eval-v2", "x"], capture_output=True, text=True)
    assert dab.returncode == 2 and dab.stderr.count("\n") == 1


def one_command(body: object) -> typer.Typer:
    """An app whose only command runs ``body`` (the way every tracegrade command is run)."""
    command = App()

    @command.command()
    def go() -> object:
        return body() if callable(body) else body

    return command


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["--version"]) == 0
    assert capsys.readouterr().out == f"tracegrade {tracegrade.__version__}\n"


@pytest.mark.parametrize(("error", "code"), [(MissingDependencyError("pip install x"), 3),
                                             (ThresholdNotMetError("score 0.4 < 0.5 [bold]"), 1)])
def test_a_tracegrade_error_is_one_line_and_its_exit_code(
    error: Exception, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail() -> None:
        raise error

    assert run_app(one_command(fail), []) == code
    assert capsys.readouterr().err == f"error: {error.args[0]}\n"


def test_ctrl_c_in_a_command_exits_130() -> None:
    def stop() -> None:
        raise KeyboardInterrupt

    assert run_app(one_command(stop), []) == 130


@pytest.mark.parametrize("stopped", [typer.Abort, KeyboardInterrupt])
def test_an_aborted_command_says_so_and_exits_130(capsys: pytest.CaptureFixture[str], stopped: type) -> None:
    def stop() -> None:
        raise stopped  # typer alone would turn a KeyboardInterrupt into a silent exit 130

    assert run_app(one_command(stop), []) == 130
    assert capsys.readouterr().err == "interrupted: nothing was kept (stopped before any result was written)\n"


def test_an_interrupted_command_says_what_it_kept(capsys: pytest.CaptureFixture[str]) -> None:
    from tracegrade.errors import Interrupted

    def stop() -> None:
        raise Interrupted("kept 3 of 5 steps scored in run/")

    assert run_app(one_command(stop), []) == 130
    assert capsys.readouterr().err == "interrupted: kept 3 of 5 steps scored in run/\n"


def test_a_commands_own_exit_code_and_returned_code_are_kept() -> None:
    def leave() -> None:
        raise typer.Exit(7)

    assert run_app(one_command(leave), []) == 7
    assert run_app(one_command(5), []) == 5 and run_app(one_command(None), []) == 0


def test_a_usage_error_shows_the_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["validate", "--no-such-option"]) == 2
    err = capsys.readouterr().err
    assert "Usage:" in err and "No such option: --no-such-option" in err


def test_library_warnings_are_wrapped_at_word_boundaries(tmp_path: Path) -> None:
    script = ("import logging, sys; from tracegrade.cli._app import app, run_app; run_app(app, ['--version']); "
              "logging.getLogger('tracegrade.judge').warning('word ' * 30)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          env={"COLUMNS": "40", "PATH": ""})
    lines = done.stderr.splitlines()
    assert lines[0].startswith("warning: word") and len(lines) > 3
    assert all(len(line) <= 40 and line.rstrip().endswith("word") for line in lines)


def test_bad_input_is_reported_before_the_local_judge_starts(tmp_path: Path) -> None:
    done = subprocess.run([Path(sys.executable).parent / "tracegrade", "judge", str(tmp_path / "missing"),
                           "--judge", "local", "-o", str(tmp_path / "run")], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == f"error: {tmp_path / 'missing'}: no such file or directory\n"


@pytest.mark.parametrize("error", [OSError(28, "No space left on device", "/out/run/report.html"),
                                   OSError(27, "File too large"), PermissionError(13, "Permission denied", "/out")])
def test_an_operating_system_error_anywhere_is_one_line_and_exit_4(
    error: OSError, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail() -> None:
        raise error

    assert run_app(one_command(fail), []) == 4  # before: a traceback and exit 1, which CI reads as a verdict
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and error.strerror in err
    assert error.filename is None or f"error: {error.filename}: " in err
