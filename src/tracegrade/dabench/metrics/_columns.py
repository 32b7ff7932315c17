"""The task_metrics column table: every column's category, type, range, formula and source.

The columns are listed, one a line, in ``task_columns.tsv`` beside this module; the per-stage and
per-action columns follow from the stages and actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tracegrade.dabench.metrics._aat import stage_column
from tracegrade.dabench.reading._vocab import ACTION_COLUMNS

__all__ = ["CATEGORIES", "TASK_COLUMNS", "MetricColumn"]


@dataclass(frozen=True, slots=True)
class MetricColumn:
    """One column of task_metrics.csv."""

    name: str
    category: str
    dtype: str
    """int, float, bool (0/1 or true/false) or str."""
    range: str
    formula: str
    source: str


_LINES = Path(__file__).with_name("task_columns.tsv").read_text(encoding="utf-8").splitlines()[1:]
_LISTED = [MetricColumn(*line.split("\t")) for line in _LINES]
T, R = "trace", "rich trace"
_STAGE_TEXT = {"time": ("float", "Σ duration_seconds of the stage's steps"), "calls": ("int", "steps in the stage")}
_STAGE_TEXT["tokens"] = ("int", "Σ tokens of the stage's steps")
_PER_STAGE = [
    MetricColumn(stage_column(stage, m), "Per-Stage", _STAGE_TEXT[m][0], "[0, ∞)", _STAGE_TEXT[m][1],
                 T if m == "calls" else R)
    for stage in ("understanding", "planning", "execution", "verification", "summary")
    for m in ("time", "calls", "tokens")
]
_PER_ACTION = [
    MetricColumn(f"{a}_{m}", "Per-Action", "int" if m == "calls" else "float", "[0, ∞)",
                 f"{'count' if m == 'calls' else 'Σ latency'} of {a}", T if m == "calls" else R)
    for a in ACTION_COLUMNS
    for m in ("calls", "time")
]

TASK_COLUMNS: tuple[MetricColumn, ...] = (*_LISTED, *_PER_STAGE, *_PER_ACTION)
CATEGORIES = tuple(dict.fromkeys(c.category for c in TASK_COLUMNS))
