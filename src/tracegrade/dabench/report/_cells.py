"""How a section cell is shown (terminal and HTML share it)."""

from __future__ import annotations

import math

from tracegrade.dabench.analyses._sections import Cell, ColumnKind
from tracegrade.render import MISSING, fmt_int, fmt_pct, fmt_score

__all__ = ["NUMERIC_KINDS", "format_cell", "sort_key"]

NUMERIC_KINDS = frozenset({"int", "pct", "score", "float", "seconds", "pm", "ci", "signed"})
"""Column kinds shown right-aligned and never wrapped."""


def _number(value: Cell) -> float | None:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def _pair(value: Cell) -> tuple[float | None, float | None] | None:
    if isinstance(value, list) and len(value) == 2:
        return value[0], value[1]
    return None


def _short(value: float, scale: float | None = None) -> str:
    """Three decimals for small numbers, fewer for large ones (tokens, seconds) so cells stay narrow.

    ``scale`` (default: the value) picks the decimals, so the numbers of one cell share a format.
    """
    size = abs(value if scale is None else scale)
    if size >= 1000:
        return f"{value:,.0f}"
    return f"{value:.1f}" if size >= 100 else f"{value:.3f}"


def format_cell(value: Cell, kind: ColumnKind) -> str:
    """The text of one cell; None (and an undefined number) is "—"."""
    if kind in ("pm", "ci"):
        pair = _pair(value)
        if pair is None or pair[0] is None:
            return MISSING
        if pair[1] is None:
            return f"{_short(pair[0])} (n=1)" if kind == "pm" else MISSING
        scale = max(abs(pair[0]), abs(pair[1]))
        low, high = _short(pair[0], scale), _short(pair[1], scale)
        return f"{low} ± {high}" if kind == "pm" else f"[{low}, {high}]"
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return MISSING
    number = _number(value)
    if kind == "text" or number is None:
        return str(value)
    if kind == "int":
        return fmt_int(number)
    if kind == "pct":
        return fmt_pct(number)
    if kind == "score":
        return fmt_score(number)
    if kind == "seconds":
        return f"{number:.1f}s"
    if kind == "signed":
        return f"{number * 100:+.1f} pp"
    return f"{number:.2f}"


def sort_key(value: Cell) -> str:
    """The ``data-sort`` attribute of an HTML cell (the raw number, else the text)."""
    pair = _pair(value)
    if pair is not None:
        return "" if pair[0] is None else repr(pair[0])
    number = _number(value)
    if number is not None:
        return repr(number)
    return "" if value is None else str(value)
