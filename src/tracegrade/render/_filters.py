"""Number and status formatting shared by the HTML filters and the terminal tables."""

from __future__ import annotations

import math

__all__ = ["MISSING", "bar_percent", "fmt_int", "fmt_pct", "fmt_score", "status_kind"]

MISSING = "—"
"""What a missing (None) or undefined number is shown as."""

_GOOD = frozenset({"completed", "passed", "pass", "ok", "success", "succeeded", "improved", "scored", "correct", "yes"})
_BAD = frozenset(
    {"failed", "fail", "error", "errors", "regressed", "interrupted", "invalid", "cancelled", "incorrect", "no"}
)
_WARN = frozenset({"mixed", "partial", "needs_review", "skipped", "missing", "unscored", "warning", "abstained"})


def fmt_score(value: float | None, digits: int = 3) -> str:
    """A score with ``digits`` decimals (``0.700``); "—" for None or a non-finite value."""
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{value:.{digits}f}"


def fmt_pct(value: float | None, digits: int = 1) -> str:
    """A fraction as a percentage (``0.125`` → ``12.5%``); "—" for None or a non-finite value."""
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{value * 100:.{digits}f}%"


def fmt_int(value: float | None) -> str:
    """A count with thousands separators (``12345`` → ``12,345``); "—" for None or a non-finite value."""
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{round(value):,}"


def status_kind(status: object) -> str:
    """The badge colour of a status word: ``good``, ``bad``, ``warn`` or ``neutral``."""
    word = str(status).strip().lower() if status is not None else ""
    if word in _GOOD:
        return "good"
    if word in _BAD:
        return "bad"
    if word in _WARN:
        return "warn"
    return "neutral"


def bar_percent(value: float | None, top: float | None) -> str:
    """Bar length as a CSS percentage of ``top``, clamped to 0–100; "0" when either is missing."""
    if value is None or top is None or not top > 0 or not math.isfinite(value):
        return "0"
    return f"{max(0.0, min(100.0, value / top * 100.0)):.1f}"
