"""Judge runs for the comparison tests: trajectories written, scored through the CLI against the marker judge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.atif.scripted import trajectory, write
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer

__all__ = ["judged", "trajectory"]


def judged(server: ScriptedJudgeServer, folder: Path, docs: dict[str, dict[str, Any]], *args: str,
           model: str = "scripted", inputs: Path | None = None) -> Path:
    """Write ``docs`` (relative path → trajectory) under ``inputs`` (default ``folder/in``), judge them, return the
    run folder."""
    inputs = inputs or folder / "in"
    for name, doc in docs.items():
        write(inputs / name, doc)
    run = folder / "run"
    code = run_app(app, ["judge", str(inputs), "--judge-url", server.base_url, "--judge-model", model,
                         "-o", str(run), "--no-cache", "--quiet", *args])
    assert code in (0, 1, 4), code  # 1: skip_failed_trajectory with a failed root
    return run
