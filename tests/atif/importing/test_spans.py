from __future__ import annotations

import base64

import pytest

from tracegrade.atif.importing._spans import Tally, iso_time, norm_id


@pytest.mark.parametrize(
    ("raw", "digits", "expected"),
    [
        ("00F067AA0BA902B7", 16, "00f067aa0ba902b7"),
        ("0x00f067aa0ba902b7", 16, "00f067aa0ba902b7"),
        ("f067aa0ba902b7", 16, "00f067aa0ba902b7"),  # Jaeger drops leading zeros
        (0xF067AA0BA902B7, 16, "00f067aa0ba902b7"),
        (base64.b64encode(bytes.fromhex("00f067aa0ba902b7")).decode(), 16, "00f067aa0ba902b7"),
        ("0" * 16, 16, None),
        ("xyz", 16, None),
        ("1" * 17, 16, None),
        (True, 16, None),
        (None, 32, None),
    ],
)
def test_ids_in_every_written_form(raw: object, digits: int, expected: str | None) -> None:
    assert norm_id(raw, digits) == expected


def test_times_are_iso_utc_with_microseconds() -> None:
    assert iso_time(1_767_261_600_123_456_789) == "2026-01-01T10:00:00.123456Z"
    assert iso_time(None) is None


@pytest.mark.parametrize(
    ("ns", "expected"),
    [
        (1_767_261_659_999_999_999, "2026-01-01T10:00:59.999999Z"),  # the last microsecond of a minute
        (1_767_261_660_000_000_000, "2026-01-01T10:01:00.000000Z"),  # the next minute, cached apart
        (1_767_261_600_000_000_000 + 10_000 * 10**9, "2026-01-01T12:46:40.000000Z"),
        (-1_000, "1969-12-31T23:59:59.999999Z"),  # before the epoch: the second counts down from the minute
        (253_402_300_799_999_999_999, "9999-12-31T23:59:59.999999Z"),
        (253_402_300_800 * 10**9, None),  # past year 9999: no timestamp
        (-62_135_596_801 * 10**9, None),
    ],
)
def test_timestamps_at_minute_and_range_edges(ns: int, expected: str | None) -> None:
    assert iso_time(ns) == expected
    assert iso_time(ns) == expected  # again, from the cache


def test_the_tally_orders_by_count_then_reason() -> None:
    tally = Tally()
    tally.add("b")
    tally.add("a", 2)
    tally.add("c", 2)
    tally.note("n")
    assert list(tally.as_dict().items()) == [("a", 2), ("c", 2), ("b", 1)]
    assert tally.notes_dict() == {"n": 1}
