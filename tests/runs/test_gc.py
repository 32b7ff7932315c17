from __future__ import annotations

import gc

import pytest

from tracegrade.runs import gc_paused


def test_full_collections_are_paused_inside_and_young_ones_kept() -> None:
    before = gc.get_threshold()
    with gc_paused():
        inside = gc.get_threshold()
    assert inside[:2] == before[:2] and inside[2] >= 2**30
    assert gc.get_threshold() == before


def test_the_thresholds_come_back_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("x")
    assert gc.get_threshold() == before
