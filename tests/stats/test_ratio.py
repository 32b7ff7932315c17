from __future__ import annotations

from tracegrade.stats import ratio


def test_ratio_is_none_without_a_denominator() -> None:
    assert ratio(1, 4) == 0.25 and ratio(0, 3) == 0.0 and ratio(2, 0) is None
    assert ratio(0, 0.0) is None and ratio(3.0, 2) == 1.5
