from __future__ import annotations

import pytest

from tracegrade.render import bar_percent, fmt_int, fmt_pct, fmt_score, status_kind


def test_scores_have_three_decimals_and_missing_is_a_dash() -> None:
    assert fmt_score(0.7) == "0.700"
    assert fmt_score(0.0) == "0.000"
    assert fmt_score(None) == "—"
    assert fmt_score(float("nan")) == "—"


def test_percentages_and_counts() -> None:
    assert fmt_pct(0.125) == "12.5%"
    assert fmt_pct(1.0, digits=0) == "100%"
    assert fmt_pct(None) == "—"
    assert fmt_int(1234567) == "1,234,567"
    assert fmt_int(None) == "—"


@pytest.mark.parametrize(
    ("status", "kind"),
    [("completed", "good"), ("FAILED", "bad"), ("needs_review", "warn"), ("whatever", "neutral"), (None, "neutral")],
)
def test_status_kind(status: str | None, kind: str) -> None:
    assert status_kind(status) == kind


def test_bar_percent_is_clamped_and_safe_without_scale() -> None:
    assert bar_percent(0.5, 2.0) == "25.0"
    assert bar_percent(3.0, 2.0) == "100.0"
    assert bar_percent(1.0, 0) == "0"
    assert bar_percent(None, 1.0) == "0"
