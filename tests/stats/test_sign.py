"""The sign test against hand-computed binomial tails."""

from __future__ import annotations

import pytest

from tracegrade.stats import sign_test


def test_hand_computed_tails() -> None:
    assert sign_test(5, 0).p_value == pytest.approx(2 / 32)  # 2 * 0.5**5
    assert sign_test(0, 5).statistic == 0.0 and sign_test(0, 5).n == 5
    assert sign_test(2, 2).p_value == 1.0
    assert sign_test(9, 1).p_value == pytest.approx(2 * 11 / 1024)  # P(X >= 9) = (10 + 1) / 1024


def test_no_decided_pair_is_undefined_and_negative_counts_are_refused() -> None:
    assert sign_test(0, 0).p_value is None
    with pytest.raises(ValueError):
        sign_test(-1, 2)
