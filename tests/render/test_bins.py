from __future__ import annotations

import math

import pytest

from tracegrade.render import score_bins


def test_each_bin_holds_its_lower_edge_and_the_last_holds_one() -> None:
    bins = score_bins([0.0, 0.1, 0.3, 0.7, 0.95, 1.0, 0.2999])
    assert [b["count"] for b in bins] == [1, 1, 1, 1, 0, 0, 0, 1, 0, 2]
    assert [b["label"] for b in bins][:3] == ["0.0", "0.1", "0.2"]
    assert bins[-1]["low"] == 0.9 and bins[-1]["high"] == 1.0


def test_no_scores_give_empty_bins() -> None:
    assert [b["count"] for b in score_bins([], bins=4)] == [0, 0, 0, 0]


@pytest.mark.parametrize("bad", [-0.01, 1.5, math.nan, math.inf])
def test_a_score_outside_the_unit_interval_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="outside"):
        score_bins([0.5, bad])
