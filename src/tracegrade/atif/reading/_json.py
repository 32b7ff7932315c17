"""Strict JSON decoding: no NaN/Infinity, valid UTF-8, no duplicate keys, bounded nesting."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import orjson
from numpy.typing import NDArray

__all__ = ["JsonProblem", "decode_strict"]

_QUOTE = ord('"')
_BACKSLASH = ord("\\")


class JsonProblem(ValueError):
    """A document is not strict JSON; ``location`` says where (``line L, column C`` or a key).

    ``line`` and ``column`` (1-based, inside the decoded text) are set when the place is a position.
    """

    def __init__(self, code: str, message: str, location: str = "", *, line: int | None = None,
                 column: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.location = location
        self.line = line
        self.column = column


def decode_strict(data: bytes) -> Any:
    """Decode one JSON document strictly, raising JsonProblem with a location."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise _syntax_problem(data, exc) from None
    if _may_hold_duplicates(data, value):
        _check_duplicates(data)
    return value


def _may_hold_duplicates(data: bytes, value: Any) -> bool:
    """Cheap, exact screen for duplicate keys: compare quote counts of the text and of its re-encoding.

    Every string (key or value) spends two quotes plus one per escaped quote inside it, in the input as
    in orjson's compact re-encoding; keeping only the last of duplicate keys drops at least one key, so
    the re-encoding has fewer quotes. A quote written as a unicode escape is the one thing that changes
    the count without a duplicate, so such input takes the exact path. Counting is vectorised (numpy):
    ``bytes.count`` and a substring search each cost about a fifth of the parse itself.

    Compact input that orjson writes back byte for byte (as compact writers produce it) is settled by
    that comparison alone: the re-encoding holds every key once, so the same bytes cannot hold one twice.
    """
    try:
        encoded = orjson.dumps(value)
    except orjson.JSONEncodeError:  # nested 255 levels or more: orjson reads it but cannot write it back
        raise JsonProblem("too_deep", "JSON nesting is too deep") from None
    if encoded == data:
        return False
    text = np.frombuffer(data, np.uint8)
    slashes = np.flatnonzero(text[:-5] == _BACKSLASH)
    if slashes.size and _unicode_escaped_quote(text, slashes):
        return True
    again = np.frombuffer(encoded, np.uint8)
    return int(np.count_nonzero(text == _QUOTE)) != int(np.count_nonzero(again == _QUOTE))


def _unicode_escaped_quote(text: NDArray[np.uint8], slashes: NDArray[np.intp]) -> bool:
    r"""Whether ``\u0022`` follows any of the backslashes at ``slashes`` (an escaped backslash may match too)."""
    found = np.ones(slashes.size, dtype=bool)
    for offset, byte in enumerate(b"u0022", start=1):
        found &= text[slashes + offset] == byte
    return bool(found.any())


def _syntax_problem(data: bytes, exc: orjson.JSONDecodeError) -> JsonProblem:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - data.rfind(b"\n", 0, err.start)  # counted in bytes: the text is not UTF-8
        return JsonProblem("invalid_utf8", f"invalid UTF-8 at byte {err.start}", f"byte {err.start}", line=line,
                           column=column)
    where = f"line {exc.lineno}, column {exc.colno}"
    position = {"line": exc.lineno, "column": exc.colno}
    reason = exc.msg.split(":")[0]
    if "depth" in exc.msg.lower() or "recursion" in exc.msg.lower():
        return JsonProblem("too_deep", "JSON nesting is too deep", where, **position)
    if data[exc.pos : exc.pos + 3] in (b"NaN", b"Inf") or data[exc.pos : exc.pos + 4] == b"-Inf":
        reason = "NaN and Infinity are not JSON"
    return JsonProblem("invalid_json", reason, where, **position)


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, val in pairs:
        if key in result:
            raise JsonProblem("duplicate_key", f"duplicate key {key!r}", f"key {key!r}")
        result[key] = val
    return result


def _check_duplicates(data: bytes) -> None:
    try:
        json.loads(data, object_pairs_hook=_reject_duplicates)
    except RecursionError:
        raise JsonProblem("too_deep", "JSON nesting is too deep") from None
