"""Every command's help page, as a real 80- and 160-column terminal (tmux) shows it."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import typer.main

from tests.conftest import REPO, unavailable
from tracegrade.cli._app import app
from tracegrade.cli._help import describe_options, reflow

MARK = "@@page:"
PRINTER = f"""
import os, sys, time
from tracegrade.cli._app import app, run_app
sys.argv[0] = "tracegrade"
for _ in range(200):  # the pane may take a moment to reach its size
    if os.get_terminal_size().columns == int(os.environ["EXPECTED_WIDTH"]):
        break
    time.sleep(0.05)
for line in sys.stdin.read().splitlines():
    print({MARK!r} + line, flush=True)
    run_app(app, [*line.split(), "--help"])
print({MARK!r} + "end", flush=True)
"""


def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = [(path, command)]
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, (*path, name))
    return found


COMMANDS = _commands(typer.main.get_command(app))


def _capture(width: int, tmp_path: Path) -> dict[str, list[str]]:
    """Each command's help page as the lines of a ``width``-column tmux pane, keyed by its command path."""
    if shutil.which("tmux") is None:
        unavailable("tmux is not installed")
    (tmp_path / "commands.txt").write_text("\n".join(" ".join(path) for path, _ in COMMANDS) + "\n")
    (tmp_path / "printer.py").write_text(PRINTER)
    (tmp_path / "tmux.conf").write_text("set -g history-limit 100000\n")
    socket = f"tracegrade-help-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", socket, "-f", str(tmp_path / "tmux.conf")]
    printer = f"{sys.executable} {tmp_path / 'printer.py'} < {tmp_path / 'commands.txt'}"
    shell = f"cd {REPO} && unset COLUMNS LINES && EXPECTED_WIDTH={width} {printer}; sleep 600"
    subprocess.run([*tmux, "new-session", "-d", "-x", str(width), "-y", "50", shell], check=True)
    try:
        screen = ""
        for _ in range(600):
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-S", "-", "-E", "-"], capture_output=True,
                                    text=True, check=True).stdout
            if f"{MARK}end" in screen:
                break
            time.sleep(0.25)
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)
    pages: dict[str, list[str]] = {}
    for chunk in screen.split(MARK)[1:]:
        name, *lines = chunk.rstrip("\n").split("\n")
        pages[name] = lines
    assert "end" in pages, screen[-2000:]
    return pages


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, list[str]]]:
    return {width: _capture(width, tmp_path_factory.mktemp(f"help{width}")) for width in (80, 160)}


@pytest.mark.parametrize("width", [80, 160])
def test_every_page_has_a_plain_usage_line_and_no_value_type_on_switches(pages: Any, width: int) -> None:
    for path, _ in COMMANDS:
        text = "\n".join(pages[width][" ".join(path)])
        usage = re.search(r"Usage: (\S.*)", text)
        assert usage is not None, (path, text)
        assert re.fullmatch(r"tracegrade( [a-z0-9-]+)* \[OPTIONS\]( (COMMAND \[ARGS\]\.\.\.|\[?[A-Z_]+(\.\.\.)?\]?))*",
                            usage.group(1).strip()), usage.group(1)
        assert "<bool>" not in text and "{" not in usage.group(1), path


@pytest.mark.parametrize("width", [80, 160])
def test_every_option_name_is_shown_whole(pages: Any, width: int) -> None:
    for path, command in COMMANDS:
        text = "\n".join(pages[width][" ".join(path)])
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden:
                for name in (*param.opts, *param.secondary_opts):
                    assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), (path, name)
        assert "…" not in text, path


@pytest.mark.parametrize("width", [80, 160])
def test_descriptions_are_reflowed_to_the_terminal(pages: Any, width: int) -> None:
    """No description line ends early when the next line's first word would have fitted on it."""
    for path, command in COMMANDS:
        lines = pages[width][" ".join(path)]
        end = next(i for i, line in enumerate(lines) if line.startswith("╭"))
        body = [line.strip() for line in lines[:end]]
        for line, following in itertools.pairwise(body):
            if line and following and not line.startswith("Usage:"):
                assert len(line) + 1 + len(following.split()[0]) > width - 2, (path, line, following)
        flat = " ".join(" ".join(body).split())
        for paragraph in reflow(command.help or ""):
            assert paragraph in flat, (path, paragraph)


def test_every_parameter_is_described() -> None:
    for path, command in COMMANDS:
        ctx = command.make_context(" ".join(("tracegrade", *path)), [], resilient_parsing=True)
        for rows in describe_options(command, ctx).values():
            for row in rows:
                assert row.help.strip(), (path, row.names)


def test_a_switch_given_a_value_is_named_as_a_usage_error(tmp_path: Path) -> None:
    run = subprocess.run([Path(sys.executable).parent / "tracegrade", "judge", "examples/atif", "--judge", "local",
                          "--no-cache", "true", "-o", str(tmp_path / "run")], cwd=REPO, capture_output=True, text=True,
                         timeout=120, check=False)
    assert run.returncode == 2
    assert "--no-cache is a switch and takes no value" in run.stderr
    assert not (tmp_path / "run").exists()
