from __future__ import annotations

import gc
import subprocess
import sys

import pytest
import typer

from tracegrade._io import command_collector, offline_command
from tracegrade._io._collector import FULL_THRESHOLD, YOUNG_THRESHOLD


def test_the_policy_holds_inside_and_the_thresholds_come_back_after() -> None:
    before = gc.get_threshold()
    with command_collector():
        inside = gc.get_threshold()
    assert inside == (max(before[0], YOUNG_THRESHOLD), before[1], max(before[2], FULL_THRESHOLD))
    assert gc.get_threshold() == before and gc.isenabled()


def test_the_cli_applies_the_policy_around_each_command_and_restores_it() -> None:
    from tracegrade.cli._app import run_app

    seen: list[tuple[int, ...]] = []
    app = typer.Typer()

    @app.command()
    def probe() -> None:
        seen.append(gc.get_threshold())

    before = gc.get_threshold()
    assert run_app(app, []) == 0
    assert seen == [(max(before[0], YOUNG_THRESHOLD), before[1], max(before[2], FULL_THRESHOLD))]
    assert gc.get_threshold() == before


def test_a_command_process_ends_with_its_objects_frozen_and_its_exit_code() -> None:
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('FROZEN', gc.get_freeze_count() > 0))\n"
        "sys.argv = ['tracegrade', '--version']\n"
        "from tracegrade.cli._app import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "FROZEN True" in done.stdout, done.stdout + done.stderr


def test_an_offline_command_runs_without_the_collector_and_gets_it_back() -> None:
    with command_collector(offline=True):
        assert not gc.isenabled()
    assert gc.isenabled()


@pytest.mark.parametrize(("argv", "offline"), [
    (["validate", "runs/"], True),
    (["import", "otel", "t.json", "-o", "out"], True),
    (["suite", "check", "d.json"], True),
    (["suite", "run", "d.json", "--results", "r.jsonl", "-o", "r.json"], True),
    (["suite", "run", "d.json", "--results", "r.jsonl", "--judge-url", "http://x", "-o", "r.json"], False),
    (["suite", "run", "d.json", "--target-cmd", "python sut.py", "-o", "r.json"], False),
    (["judge", "runs/", "--judge-url", "http://x"], False),
    (["compare", "base", "cand", "-o", "cmp"], True),
    (["compare", "base", "cand", "--pairwise", "--judge-url", "http://x"], False),
    (["localise", "run-1", "--strategy", "from-scores"], False),
    (["--help"], False),
    ([], False),
])
def test_offline_commands_are_those_that_only_read_and_write_files(argv: list[str], offline: bool) -> None:
    assert offline_command(argv) is offline
