"""The span records every trace format is read into, and the tally of what an import could not map."""

from __future__ import annotations

import base64
import binascii
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["Span", "SpanEvent", "Tally", "iso_time", "norm_id"]

_HEX = frozenset("0123456789abcdef")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(slots=True)
class SpanEvent:
    """A span event or a log record joined to its span (the GenAI events are either)."""

    name: str
    time_ns: int | None
    attributes: dict[str, Any]
    body: Any = None
    """The log record's body (an event's payload in the GenAI event conventions); None for span events."""


@dataclass(slots=True, eq=False)
class Span:
    """One span, whatever the file it came from: ids in lower-case hex, times in Unix nanoseconds."""

    trace_id: str
    """32 hex digits; empty when the format carries no trace (a bare attribute map)."""
    span_id: str
    """16 hex digits (or a synthetic id for a span without one)."""
    parent_id: str | None
    name: str
    start_ns: int | None
    end_ns: int | None
    attributes: dict[str, Any]
    error: str | None = None
    """The status message when the span's status is ERROR (empty when it gave none); None otherwise."""
    events: list[SpanEvent] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)
    scope: str = ""
    """The instrumentation scope (library) that wrote the span."""
    order: int = 0
    """Position in the input, for a stable order among spans that start at the same time."""
    source: str = ""
    """The file (and line) the span was read from."""


class Tally:
    """What one input file held that the import could not carry into ATIF, and notes, counted by reason."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.notes: Counter[str] = Counter()

    def add(self, reason: str, count: int = 1) -> None:
        """Count ``count`` more things not mapped for ``reason``."""
        self.counts[reason] += count

    def note(self, reason: str, count: int = 1) -> None:
        """Count ``count`` more things mapped with a caveat (an orphan span put under the root...)."""
        self.notes[reason] += count

    def as_dict(self) -> dict[str, int]:
        """The things not mapped, most frequent first (ties by reason)."""
        return _ordered(self.counts)

    def notes_dict(self) -> dict[str, int]:
        """The notes, most frequent first (ties by reason)."""
        return _ordered(self.notes)


def _ordered(counts: Counter[str]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def norm_id(value: Any, digits: int) -> str | None:
    """A trace (32 digits) or span (16 digits) id as lower-case hex, or None when it cannot be one.

    Accepted: hex (OTLP/JSON, Jaeger, with or without ``0x``, shorter ids zero-padded), base64 of the
    raw bytes (protobuf's JSON mapping) and unsigned integers (SDK dumps). An all-zero id is no id.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        text = format(value, "x") if 0 < value < 1 << (4 * digits) else ""
    elif isinstance(value, str):
        text = value.strip().lower().removeprefix("0x")
        if text and not set(text) <= _HEX:
            text = _from_base64(value.strip(), digits)
    else:
        return None
    if not text or len(text) > digits or set(text) == {"0"}:
        return None
    return text.rjust(digits, "0")


def _from_base64(text: str, digits: int) -> str:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return ""
    return raw.hex() if len(raw) * 2 == digits else ""


def iso_time(ns: int | None) -> str | None:
    """Unix nanoseconds as an ISO 8601 UTC timestamp with microseconds, or None."""
    if ns is None:
        return None
    seconds, micro = divmod(ns // 1000, 1_000_000)
    minute, second = divmod(seconds, 60)
    prefix = _MINUTES.get(minute) or _minute(minute)
    return f"{prefix}{second:02d}.{micro:06d}Z" if prefix else None


_MINUTES: dict[int, str] = {}
"""``YYYY-MM-DDTHH:MM:`` by minute since the epoch, for the minutes already met."""


def _minute(minute: int) -> str:
    """The minute as ``YYYY-MM-DDTHH:MM:``; empty when it is out of range."""
    if len(_MINUTES) > 4096:
        _MINUTES.clear()
    try:
        found = (_EPOCH + timedelta(minutes=minute)).strftime("%Y-%m-%dT%H:%M:")
    except OverflowError:
        found = ""
    _MINUTES[minute] = found
    return found
