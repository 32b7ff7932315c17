"""The example run of examples/dabench through the whole eval-v2 pipeline, and readers of its report.

The example (examples/dabench/README.md): task_1 easy, right first time; task_2 hard, replanned and
retried, then right; task_3 medium, timed out without a prediction. The hand values the tests check
come from its traces (step durations, tokens, decisions) and gold tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracegrade.dabench import EvalOptions, Mode, PipelineOptions, run_pipeline

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dabench"


def evaluate(out: Path, mode: str = "research", **extra: Any) -> Path:
    """Run ``dabench eval-v2`` on the example into ``out``."""
    options = EvalOptions(run="demo-run", runs_root=EXAMPLE / "runs", data_root=EXAMPLE / "data", output=out)
    run_pipeline(options, PipelineOptions(mode=Mode(mode), **extra))
    return out


def rows(report: dict[str, Any], section: str) -> list[dict[str, Any]]:
    """The rows of one section of report.json (which must have data)."""
    found = [s for s in report["sections"] if s["id"] == section]
    assert len(found) == 1, section
    assert found[0]["empty"] is None, found[0]["empty"]
    return found[0]["rows"]  # type: ignore[no-any-return]


def raw(report: dict[str, Any], section: str) -> dict[str, Any]:
    """A measure/value section as measure → raw number."""
    return {r["measure"]: r["raw"] for r in rows(report, section)}


def notes(report: dict[str, Any], section: str) -> list[str]:
    """The notes under one section."""
    return next(s for s in report["sections"] if s["id"] == section)["notes"]  # type: ignore[no-any-return]
