"""Commands run in a real terminal of a given width (a tmux pane), and the screen they leave."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import tracegrade
from tests.conftest import unavailable

DONE = "@@terminal-done@@"
TRACEGRADE = f'{shlex.quote(sys.executable)} -c "from tracegrade.cli import main; main()"'
"""This checkout's ``tracegrade`` command, for a shell line."""


def screen(command: str, cwd: Path, *, width: int = 80, height: int = 60, timeout: float = 120.0) -> list[str]:
    """The lines a ``width``-column terminal shows (scrollback included) after ``command`` ran in it."""
    if shutil.which("tmux") is None:
        unavailable("tmux is not installed")
    config = cwd / ".tmux.conf"
    config.write_text("set -g history-limit 100000\n")
    tmux = ["tmux", "-L", f"tracegrade-term-{uuid.uuid4().hex[:8]}", "-f", str(config)]
    source = str(Path(tracegrade.__file__).resolve().parents[1])
    path = os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH", "")]))
    shell = (f"cd {shlex.quote(str(cwd))} && unset COLUMNS LINES && export PYTHONPATH={shlex.quote(path)} && "
             f"sleep 0.3 && {command}; echo {DONE}; sleep 600")
    subprocess.run([*tmux, "new-session", "-d", "-x", str(width), "-y", str(height), shell], check=True)
    try:
        shown = ""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = subprocess.run([*tmux, "capture-pane", "-p", "-S", "-", "-E", "-"], capture_output=True,
                                   text=True, check=True).stdout
            if DONE in shown.replace(f"echo {DONE}", ""):
                break
            time.sleep(0.25)
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)
    lines = shown.rstrip("\n").split("\n")
    assert any(line.startswith(DONE) for line in lines), "\n".join(lines[-40:])
    return [line.rstrip() for line in lines[: next(i for i, line in enumerate(lines) if line.startswith(DONE))]]
