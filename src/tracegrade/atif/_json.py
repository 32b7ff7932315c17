"""Strict JSON decoding: no NaN/Infinity, valid UTF-8, no duplicate keys, bounded nesting."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = ["JsonProblem", "decode_strict"]

# An unescaped quote followed by optional whitespace and a colon ends an object key. Keys that
# end in an escaped backslash are missed, which can only make the count smaller; a mismatch
# then falls back to the exact (slower) check, so the fast path never hides a duplicate.
_KEY_END = re.compile(rb'(?<!\\)"[ \t\r\n]*:')


class JsonProblem(ValueError):
    """A document is not strict JSON; ``location`` says where (``line L, column C`` or a key)."""

    def __init__(self, code: str, message: str, location: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.location = location


def decode_strict(data: bytes) -> Any:
    """Decode one JSON document strictly, raising JsonProblem with a location."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise _syntax_problem(data, exc) from None
    if _keys_in_value(value) != _keys_in_text(data):
        _check_duplicates(data)
    return value


def _keys_in_text(data: bytes) -> int:
    """Count object keys in JSON text: each key ends with an unescaped quote, optional space, colon."""
    if b'\\":' not in data and not any(gap in data for gap in (b'" :', b'"\t:', b'"\n:', b'"\r:')):
        return data.count(b'":')  # exact: a quote inside a string is always escaped
    return len(_KEY_END.findall(data))


def _keys_in_value(value: Any) -> int:
    """Count object keys in decoded JSON (compact re-encoding is exact when no string holds a quote-colon)."""
    compact = orjson.dumps(value)
    if b'\\":' not in compact:
        return compact.count(b'":')
    return _count_keys(value)


def _syntax_problem(data: bytes, exc: orjson.JSONDecodeError) -> JsonProblem:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        return JsonProblem("invalid_utf8", f"invalid UTF-8 at byte {err.start}", f"byte {err.start}")
    where = f"line {exc.lineno}, column {exc.colno}"
    reason = exc.msg.split(":")[0]
    if "depth" in exc.msg.lower() or "recursion" in exc.msg.lower():
        return JsonProblem("too_deep", "JSON nesting is too deep", where)
    if data[exc.pos : exc.pos + 3] in (b"NaN", b"Inf") or data[exc.pos : exc.pos + 4] == b"-Inf":
        reason = "NaN and Infinity are not JSON"
    return JsonProblem("invalid_json", reason, where)


def _count_keys(value: Any) -> int:
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += len(item)
            stack.extend(v for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, dict | list))
    return count


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
