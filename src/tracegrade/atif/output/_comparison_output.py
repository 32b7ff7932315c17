"""What the three comparisons (``compare``, ``--judges``, ``--pairwise``) share when shown and written.

80-column terminal lines, the gate's lines, a figure with its interval, and the run folder of
``comparison.json``, ``comparison.html`` and the manifest.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel

from tracegrade.runs import JobStatus, RunFolder

__all__ = ["WIDTH", "Gate", "fit", "gate_lines", "interval_text", "write_comparison_folder"]

WIDTH = 80


class Gate(Protocol):
    """A comparison's gate verdict, as its lines read it."""

    @property
    def exit_code(self) -> int: ...

    @property
    def checked(self) -> list[str]: ...

    @property
    def fired(self) -> list[str]: ...


def fit(line: str) -> str:
    """``line`` cut to 80 columns (its last kept character an ellipsis)."""
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def rule_lines(rule: str) -> list[str]:
    """A fired rule wrapped to 80 columns, indented two spaces (four on the lines it continues on)."""
    return textwrap.wrap(rule, WIDTH, initial_indent="  ", subsequent_indent="    ")


def gate_lines(gate: Gate, wrap: Callable[[str], list[str]] = rule_lines, warnings: Sequence[str] = ()) -> list[str]:
    """The verdict and exit code, then each fired rule and each warning (``warning: ...``) as ``wrap`` folds it."""
    if not gate.checked:
        return ["gate: off (exit 0)"]
    warned = [line for warning in warnings for line in wrap(f"warning: {warning}")]
    if not gate.fired:
        return [f"gate: passed ({', '.join(gate.checked)}): exit 0", *warned]
    return ["gate: FAILED: exit 1", *(line for rule in gate.fired for line in wrap(rule)), *warned]


def interval_text(value: float, low: float | None, high: float | None, *, signed: bool = False) -> str:
    """``0.612 [0.410, 0.780]`` (``+`` signs when ``signed``); the value alone without both bounds."""
    form = "{:+.3f}" if signed else "{:.3f}"
    shown = form.format(value)
    return shown if low is None or high is None else f"{shown} [{form.format(low)}, {form.format(high)}]"


def write_comparison_folder(out_dir: Path, *, kind: str, job_id: str, comparison: BaseModel, gate: Gate,
                            render: Callable[[str], str]) -> dict[str, Path]:
    """Write ``comparison.json`` and ``comparison.html`` into a run folder, then its manifest; paths by name.

    ``render`` makes the HTML from the time stamp it shows.

    Raises:
        OutputError: the folder cannot be written.
    """
    folder = RunFolder(out_dir, kind=kind, job_id=job_id)
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    paths = {
        "comparison.json": folder.write_json("comparison.json", comparison.model_dump(mode="json")),
        "comparison.html": folder.write_text("comparison.html", render(stamp)),
    }
    folder.finish(JobStatus.COMPLETED, {"gate_exit_code": gate.exit_code})
    return paths
