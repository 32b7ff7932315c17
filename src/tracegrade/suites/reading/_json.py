"""Strict JSON reading, canonical JSON and RFC 6901 pointers for suites."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import orjson

__all__ = [
    "ABSENT",
    "Absent",
    "JsonProblem",
    "canonical",
    "json_key",
    "loads_strict",
    "loads_strict_many",
    "needs_exact_reading",
    "pointer_tokens",
    "resolve",
    "valid_pointer",
]

_BAD_ESCAPE = re.compile(r"~(?:[^01]|$)")


class JsonProblem(ValueError):
    """A document is not strict JSON; ``where`` names the place (``line L, column C`` or a key)."""

    def __init__(self, message: str, where: str = "", *, token: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.token = token
        """The offending text, used to find ``where`` when the decoder does not say."""


class Absent:
    """The marker of a pointer that does not resolve (distinct from JSON null)."""

    _instance: Absent | None = None

    def __new__(cls) -> Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT = Absent()
"""The one :class:`Absent` value."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise JsonProblem(f"duplicate key {key!r}", f"key {key!r}")
        result[key] = value
    return result


def _constant(name: str) -> Any:
    raise JsonProblem(f"{name} is not JSON", token=name)


def _number(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise JsonProblem(f"number {text[:40]} overflows", token=text)
    return value


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > 20:  # int() of a huge literal is slow, then refused: decide by its length first
        raise JsonProblem(f"integer {text[:40]}... overflows 64 bits", token=text)
    value = int(text)
    if not -(2**63) <= value < 2**64:
        raise JsonProblem(f"integer {text[:40]} overflows 64 bits", token=text)
    return value


_DIGITS = bytes(1 if 0x30 <= byte <= 0x39 else 0 for byte in range(256))
"""A translation marking ASCII digits 1 and every other byte 0."""
_LONG_RUN = b"\x01" * 19
"""19 digits in a row: a number that may overflow 64 bits (a table lookup and a search beat a regex 8 to 1)."""


def loads_strict(data: bytes | str) -> Any:
    """Decode one JSON document: no duplicate keys, no NaN/Infinity, no overflowing numbers.

    Raises:
        JsonProblem: with the place of the first problem.
    """
    raw = data.encode() if isinstance(data, str) else data
    if not needs_exact_reading(raw):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # the exact decoder below names the problem and its place
        else:
            # Keeping only the last of duplicate keys drops quotes: equal counts mean no duplicates.
            if raw.count(b'"') == _encoded_quotes(value):
                return value
    return _loads_exact(raw)


_SLICE_BYTES = 1 << 20
_SLICE_ITEMS = 1024
"""How much of a large document (bytes, or items of a top-level array) each screen takes at a time: the
slices' buffers are reused, where a copy of a whole case file would be fresh memory each time."""


def needs_exact_reading(raw: bytes) -> bool:
    """Whether ``raw`` holds what orjson may read otherwise than strict JSON: an escaped quote, 19 digits in a row."""
    return b"\\u0022" in raw or _long_run(raw)


def _long_run(raw: bytes) -> bool:
    """Whether ``raw`` holds :data:`_LONG_RUN` digits in a row (slices overlap by one run less a digit)."""
    if len(raw) <= _SLICE_BYTES:
        return _LONG_RUN in raw.translate(_DIGITS)
    reach = _SLICE_BYTES + len(_LONG_RUN) - 1
    return any(_LONG_RUN in raw[at:at + reach].translate(_DIGITS) for at in range(0, len(raw), _SLICE_BYTES))


def _encoded_quotes(value: Any) -> int:
    """The quotes in ``value`` as compact JSON (a large array is written a slice of items at a time)."""
    if type(value) is not list or len(value) <= _SLICE_ITEMS:
        return _encoded(value).count(b'"')
    return sum(_encoded(value[at:at + _SLICE_ITEMS]).count(b'"') for at in range(0, len(value), _SLICE_ITEMS))


def loads_strict_many(documents: list[bytes]) -> list[Any] | None:
    """What :func:`loads_strict` gives for each of ``documents`` (none holding a newline) when it accepts them all.

    None when one of them may be refused (then read them one by one to name the problem). The screens of
    :func:`loads_strict` run once over all of them: a long run of digits or an escaped quote cannot span two
    documents joined by newlines, and each document's quotes can only be fewer once decoded, so equal totals
    mean no document lost a duplicate key.
    """
    joined = b"\n".join(documents)
    if b"\\u0022" in joined or _LONG_RUN in joined.translate(_DIGITS):
        return None
    try:
        values = [orjson.loads(document) for document in documents]
        encoded = orjson.dumps(values)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None
    return values if joined.count(b'"') == encoded.count(b'"') else None


def _encoded(value: Any) -> bytes:
    """``value`` as compact JSON; nesting orjson cannot write back (255 levels or more) is refused."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        raise JsonProblem("JSON nesting is too deep") from None


def _loads_exact(data: bytes) -> Any:
    try:
        return json.loads(data, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_number,
                          parse_int=_integer)
    except JsonProblem as exc:
        if not exc.where and exc.token:
            exc.where = _place(data, exc.token.encode())
        raise
    except json.JSONDecodeError as exc:
        raise JsonProblem(exc.msg, f"line {exc.lineno}, column {exc.colno}") from None
    except UnicodeDecodeError as exc:
        raise JsonProblem("invalid UTF-8", f"byte {exc.start}") from None
    except RecursionError:
        raise JsonProblem("JSON nesting is too deep") from None


def _place(data: bytes, token: bytes) -> str:
    at = data.find(token)
    if at < 0:
        return ""
    line = data.count(b"\n", 0, at) + 1
    column = at - data.rfind(b"\n", 0, at)
    return f"line {line}, column {column}"


def canonical(value: Any) -> bytes:
    """Type-sensitive canonical JSON bytes (sorted keys, compact): ``true`` and ``1`` differ."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def json_key(value: Any) -> Any:
    """A hashable stand-in for ``canonical(value)``: two values' keys are equal exactly when their canonical JSON is.

    Strings, integers, booleans and null are their own keys (tagged where Python equates ``1``, ``1.0`` and
    ``True``); any other value is its canonical JSON bytes.
    """
    kind = type(value)
    if kind is str:
        return value
    if kind is int or kind is bool:
        return (kind is bool, value)
    if value is None:
        return None
    return canonical(value)


@functools.lru_cache(maxsize=65536)
def valid_pointer(pointer: str) -> bool:
    """Whether ``pointer`` is an RFC 6901 JSON pointer (``""`` is the whole document)."""
    return pointer == "" or (pointer.startswith("/") and _BAD_ESCAPE.search(pointer) is None)


@functools.lru_cache(maxsize=65536)
def pointer_tokens(pointer: str) -> tuple[str, ...]:
    """The unescaped reference tokens of a valid pointer."""
    if pointer == "":
        return ()
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/"))


def _index(token: str) -> bool:
    return token.isascii() and token.isdigit() and (token == "0" or not token.startswith("0"))


def resolve(document: Any, tokens: tuple[str, ...]) -> Any:
    """The value at ``tokens`` in ``document``, or :data:`ABSENT` when a member is missing."""
    value = document
    for token in tokens:
        if type(value) is dict or isinstance(value, dict):
            value = value.get(token, ABSENT)  # ABSENT is neither an object nor an array: it stays
        elif isinstance(value, list):
            if not _index(token) or int(token) >= len(value):
                return ABSENT
            value = value[int(token)]
        else:
            return ABSENT
    return value
