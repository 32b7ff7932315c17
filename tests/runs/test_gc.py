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


def test_no_collections_run_inside_gc_off_and_the_collector_comes_back() -> None:
    from tracegrade.runs import gc_off

    assert gc.isenabled()
    with gc_off():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == 0  # outside a pause nothing is frozen
    gc.disable()
    try:
        with gc_off():
            pass
        assert not gc.isenabled()  # a collector that was off stays off
    finally:
        gc.enable()


def test_records_built_without_collections_are_frozen_until_the_outermost_pause_ends() -> None:
    from tracegrade.runs import gc_off

    with gc_paused():
        with gc_paused(), gc_off():
            records = [{"n": n} for n in range(1000)]
        assert gc.get_freeze_count() >= len(records)  # not walked by the young collections after
        with gc_paused():
            pass
        assert gc.get_freeze_count() >= len(records)  # an inner pause leaves them frozen
    assert gc.get_freeze_count() == 0  # handed back to the collector


def test_a_freeze_made_by_the_process_itself_is_never_undone() -> None:
    from tracegrade.runs import gc_off

    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused(), gc_off():
            records = [{"n": n} for n in range(1000)]
        assert gc.get_freeze_count() == frozen and records
    finally:
        gc.unfreeze()
