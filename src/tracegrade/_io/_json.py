"""The product's one strict JSON reader: one policy for every JSON file, line, body and answer read.

The policy (docs/json-policy.md): the bytes are UTF-8; an object repeats no key; NaN and Infinity are
not JSON, nor is a number beyond a double's range; an integer is read exactly, however wide (up to the
4,300 digits Python converts); a fraction or exponent makes a double; a string holds no lone surrogate;
nesting is at most :data:`MAX_DEPTH` levels. Anything else is a :class:`JsonProblem` naming the place:
``line L, column C``, ``byte N`` or a JSON pointer.

orjson reads most documents, with screens that send anything it could read otherwise than this policy
to the exact reader (the standard library's, with hooks); the exact reader names the problem and its place.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

if TYPE_CHECKING:
    import msgspec

import orjson

__all__ = [
    "MAX_DEPTH",
    "JsonProblem",
    "decode_typed",
    "loads",
    "loads_many",
    "loads_written",
    "objects_in_text",
]

T = TypeVar("T")

MAX_DEPTH = 254
"""Deepest nesting of arrays and objects accepted (the most that the product's JSON writer can write back)."""

_QUOTE = ord('"')
_DIGITS = bytes(1 if 0x30 <= byte <= 0x39 else 0 for byte in range(256))
"""A translation marking ASCII digits 1 and every other byte 0."""
_LONG_RUN = b"\x01" * 19
"""19 digits in a row: a number orjson may read otherwise than exactly (beyond 64 bits it gives a float)."""
_NUMBER_BYTES = frozenset(b"0123456789.-")
"""What a number written by orjson holds before its exponent."""
_BEFORE_VALUE = frozenset(b"[,:")
"""What precedes a value in orjson's JSON (past its indentation)."""
_INDENTATION = frozenset(b" \n")
_INDENTED = (b"{\n  ", b"[\n  ")
"""How a document indented by two spaces starts (compared with orjson's own indented writing)."""
_SLICE = 1 << 20
"""Bytes screened at a time: the screens' buffers are reused instead of a copy of a whole large document."""
_SMALL = 1 << 12
"""Documents counted inline with ``bytes.count`` (numpy's vectorised count pays off on larger ones)."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
"""Text that may decode to a lone surrogate (an escape of one, or one itself)."""
_marks = threading.local()
"""Whether the exact reader's hooks met a repeated key or a number beyond a double in the current decoding."""


class JsonProblem(ValueError):
    """A document breaks the JSON policy; ``where`` names the place, ``code`` the rule.

    Codes: ``invalid_json`` (syntax, NaN and Infinity included), ``invalid_utf8``, ``duplicate_key``,
    ``number_out_of_range``, ``lone_surrogate``, ``too_deep``. ``line`` and ``column`` (1-based) are set
    when the place is a position in the text; ``pointer`` (RFC 6901) when it is a value.
    """

    def __init__(self, code: str, message: str, where: str = "", *, line: int | None = None,
                 column: int | None = None, pointer: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.where = where
        self.line = line
        self.column = column
        self.pointer = pointer

    def describe(self) -> str:
        """``where: message``, or the message alone when there is no place."""
        return f"{self.where}: {self.message}" if self.where else self.message


def loads(data: bytes | str) -> Any:
    """One JSON document read under the policy.

    Raises:
        JsonProblem: the first problem, with its place.
    """
    value = _fast(data)
    return value if value is not _DOUBT else _exact(data)


def loads_many(documents: list[bytes]) -> list[Any] | None:
    """What :func:`loads` gives for each of ``documents`` (JSON lines, none holding a newline) when it accepts all.

    None when one of them may be refused: read them one by one with :func:`loads` to name the problem.
    The screens run once over all of them (an escape cannot span two lines, and each line's quotes can only
    be fewer once decoded, so equal totals mean no line lost a duplicate key).
    """
    try:
        values = [orjson.loads(document) for document in documents]
        encoded = orjson.dumps(values)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None
    joined = b"\n".join(documents)
    if _rounded_integer(encoded) or _escaped_quote(joined) or _quotes(joined) != _quotes(encoded):
        return None
    return values


@overload
def loads_written(data: bytes) -> Any: ...


@overload
def loads_written(data: bytes, kind: type[T]) -> T: ...


def loads_written(data: bytes, kind: Any = None) -> Any:
    """JSON that tracegrade wrote itself (a run folder's file, a report, a spool, a cache row), read as written.

    Such bytes were produced by the product's writer from values read under the policy (or are bytes that
    :func:`loads` accepted earlier in this process), so the screens are not run again. With ``kind`` (a
    msgspec record type) the bytes are decoded into its records.

    Raises:
        ValueError: the bytes are not JSON (``orjson.JSONDecodeError``), or not ``kind``'s records
            (``msgspec.ValidationError``, ``msgspec.DecodeError``).
    """
    return orjson.loads(data) if kind is None else _coders(kind)[0].decode(data)


def decode_typed(data: bytes, kind: type[T]) -> T | None:
    """``data`` decoded into ``kind``'s records (msgspec) when the policy surely holds for it; else None.

    None also when the records do not fit the data: the caller then reads it with :func:`loads` (which names
    any problem) and validates the values. Nesting is the caller's to bound (the records' shape fixes it).
    """
    if _doubtful_text(data):
        return None
    import msgspec  # only typed readers need it

    decoder, encoder = _coders(cast(Hashable, kind))  # a record type, or a generic alias of one
    try:
        value = decoder.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    # Keeping only the last of duplicate keys drops quotes (an unset field is not written back either).
    return value if _quotes(data) == _quotes(encoder.encode(value)) else None


@functools.cache
def _coders(kind: Hashable) -> tuple[msgspec.json.Decoder[Any], msgspec.json.Encoder]:
    """The msgspec decoder of ``kind``'s records and an encoder, made once per type."""
    import msgspec

    return msgspec.json.Decoder(kind), msgspec.json.Encoder()


_DOUBT: Any = object()


def _fast(data: bytes | str) -> Any:
    """``data`` read by orjson when the screens show it reads as the policy says; else :data:`_DOUBT`.

    orjson refuses NaN, a number beyond a double, a lone surrogate and bad UTF-8 itself, and its
    re-encoding refuses nesting beyond :data:`MAX_DEPTH`. Two readings of its differ from the policy's:

    - an integer beyond 64 bits becomes a float, which the re-encoding writes with an exponent of at least
      ``e+18`` (:func:`_rounded_integer`);
    - of duplicate keys only the last is kept. Every string (key or value) spends two quotes plus one per
      escaped quote inside it, in the input as in the re-encoding; a dropped key takes its quotes with it, so
      the re-encoding has fewer. A quote written as a unicode escape is the one thing that changes the count
      otherwise, so such input is in doubt.

    Input that orjson writes back byte for byte is settled by that comparison alone (the re-encoding holds
    every key once and every integer as written): compact input, and input indented by two spaces, as
    ``json.dumps(..., indent=2)`` and orjson write it (a final newline aside; DataAgent-Bench's trace files).
    """
    if isinstance(data, str):
        try:
            raw = data.encode()
        except UnicodeEncodeError:  # a lone surrogate in the text itself
            return _DOUBT
    else:
        raw = data
    try:
        value = orjson.loads(raw)
        if raw[:4] in _INDENTED:
            encoded = orjson.dumps(value, option=orjson.OPT_INDENT_2)  # refuses more than MAX_DEPTH levels
            if raw.startswith(encoded) and (len(raw) == len(encoded) or raw[len(encoded):] == b"\n"):
                return value
        else:
            encoded = orjson.dumps(value)  # refuses more than MAX_DEPTH levels
            if encoded == raw:
                return value
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return _DOUBT
    if _rounded_integer(encoded) or _escaped_quote(raw) or _quotes(raw) != _quotes(encoded):
        return _DOUBT
    return value


def _rounded_integer(encoded: bytes) -> bool:
    """Whether orjson's re-encoding ``encoded`` holds a number written with a positive exponent (``1e+23``).

    orjson reads an integer beyond 64 bits (at least 2**63 in magnitude) as a float, and writes every float
    of at least 1e16 with ``e+``; a document holding none has no such integer. Text inside a string that
    looks like such a number (``"1.5e+05 rows"``) is told apart by what precedes it: a number orjson writes
    starts the document or follows ``[``, ``,`` or ``:`` (and, indented, spaces and a line end); anything
    else is a string's text (text that merely looks like that is only sent to the exact reader).
    """
    if b"+" not in encoded:
        return False
    at = encoded.find(b"e+")
    while at > 0:
        start = at
        while start > 0 and encoded[start - 1] in _NUMBER_BYTES:
            start -= 1
        before = start
        while before > 0 and encoded[before - 1] in _INDENTATION:
            before -= 1
        if start < at and (before == 0 or encoded[before - 1] in _BEFORE_VALUE):
            return True
        at = encoded.find(b"e+", at + 2)
    return False


def _escaped_quote(raw: bytes) -> bool:
    r"""Whether ``raw`` may write a quote as ``\u0022`` (only text holding a backslash can)."""
    return b"\\" in raw and b"\\u0022" in raw


def _doubtful_text(raw: bytes) -> bool:
    r"""Whether ``raw`` holds a quote written ``\u0022`` or a run of 19 digits (slices overlap by a run less one)."""
    if b"\\u0022" in raw:
        return True
    if len(raw) <= _SLICE:
        return _LONG_RUN in raw.translate(_DIGITS)
    reach = _SLICE + len(_LONG_RUN) - 1
    return any(_LONG_RUN in raw[at:at + reach].translate(_DIGITS) for at in range(0, len(raw), _SLICE))


def _quotes(raw: bytes) -> int:
    """The double quotes in ``raw``, counted a slice at a time (vectorised past a small document)."""
    if len(raw) <= _SMALL:
        return raw.count(b'"')
    import numpy as np  # only documents past _SMALL need it

    text = np.frombuffer(raw, np.uint8)
    return sum(int(np.count_nonzero(text[at:at + _SLICE] == _QUOTE)) for at in range(0, len(text), _SLICE))


class _Marked(dict[str, Any]):
    """An object whose text repeated ``key`` (the exact reader keeps the last value, and marks it)."""

    key = ""


_INFINITY = float("inf")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    _marks.found = True
    marked = _Marked(pairs)
    seen: set[str] = set()
    marked.key = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
    return marked


class _NotJson(Exception):
    """NaN or Infinity met by the exact reader: a syntax problem, placed by orjson."""


def _constant(name: str) -> None:
    raise _NotJson(name)


def _number(text: str) -> float:
    value = float(text)
    if value in (_INFINITY, -_INFINITY):
        _marks.found = True
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_number)
_LONG_INTEGER = re.compile(r"-?[0-9]{4301,}")


def _exact(data: bytes | str) -> Any:
    """``data`` read by the standard library's decoder, then checked value by value; the first problem raised."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            line = data.count(b"\n", 0, err.start) + 1
            column = err.start - data.rfind(b"\n", 0, err.start)  # counted in bytes: the text is not UTF-8
            raise JsonProblem("invalid_utf8", f"invalid UTF-8 at byte {err.start}", f"byte {err.start}",
                              line=line, column=column) from None
    else:
        text = data
    try:
        _marks.found = False
        value = _DECODER.decode(text)
    except (json.JSONDecodeError, _NotJson) as exc:
        raise _syntax(text, exc) from None
    except RecursionError:
        raise JsonProblem("too_deep", f"JSON nesting is deeper than {MAX_DEPTH} levels") from None
    except ValueError:  # Python converts at most sys.get_int_max_str_digits() digits (4,300 by default)
        raise _long_integer(text) from None
    _check_if_marked(value, text, 0, len(text))
    return value


def _long_integer(text: str) -> JsonProblem:
    found = _LONG_INTEGER.search(text)
    at = found.start() if found else 0
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    digits = len(found.group().lstrip("-")) if found else 0
    return JsonProblem("number_out_of_range", f"an integer of {digits:,} digits (at most 4,300 are read)",
                       f"line {line}, column {column}", line=line, column=column)


def _check_if_marked(value: Any, text: str, start: int, end: int) -> None:
    """:func:`_check` ``value`` (decoded from ``text[start:end]``) when it may break the policy.

    The hooks mark a repeated key and a number beyond a double; the text shows whether a lone surrogate or
    more than :data:`MAX_DEPTH` brackets may be there. Anything else is surely within the policy.
    """
    if (_marks.found or (text.find("\\u", start, end) >= 0 and _MAYBE_SURROGATE.search(text, start, end))
            or (not text.isascii() and _SURROGATE.search(text, start, end))
            or text.count("[", start, end) + text.count("{", start, end) > MAX_DEPTH):
        _check(value)


def _syntax(text: str, exc: Exception) -> JsonProblem:
    """The syntax problem of ``text`` as orjson words and places it (the standard library's words otherwise)."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as found:
        reason = found.msg.split(":")[0]
        if text.startswith(("NaN", "Infinity", "-Infinity"), found.pos) or text.startswith("Inf", found.pos + 1):
            reason = "NaN and Infinity are not JSON"
        return JsonProblem("invalid_json", reason, f"line {found.lineno}, column {found.colno}",
                           line=found.lineno, column=found.colno)
    if isinstance(exc, json.JSONDecodeError):  # pragma: no cover - orjson refuses what the standard library does
        return JsonProblem("invalid_json", exc.msg, f"line {exc.lineno}, column {exc.colno}", line=exc.lineno,
                           column=exc.colno)
    return JsonProblem("invalid_json", "NaN and Infinity are not JSON")  # pragma: no cover - as above


def _check(value: Any) -> None:
    """Raise the first problem in ``value``, in document order, at its JSON pointer."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, pointer, depth = stack.pop()
        kind = type(item)
        if kind is str:
            if _SURROGATE.search(item):
                raise _at(pointer, "lone_surrogate", "a string holds a lone surrogate (not Unicode text)")
        elif kind is float and item in (_INFINITY, -_INFINITY):
            raise _at(pointer, "number_out_of_range", "a number beyond a double's range")
        elif kind is dict or kind is _Marked or kind is list:
            if depth >= MAX_DEPTH:
                raise _at(pointer, "too_deep", f"JSON nesting is deeper than {MAX_DEPTH} levels")
            if kind is _Marked:
                raise _at(f"{pointer}/{_escaped(item.key)}", "duplicate_key", f"duplicate key {item.key!r}")
            if kind is list:
                stack.extend((child, f"{pointer}/{index}", depth + 1) for index, child in reversed(
                    list(enumerate(item))))
                continue
            for key in item:
                if _SURROGATE.search(key):
                    raise _at(pointer, "lone_surrogate", "a key holds a lone surrogate (not Unicode text)")
            stack.extend((item[key], f"{pointer}/{_escaped(key)}", depth + 1) for key in reversed(list(item)))


def _at(pointer: str, code: str, message: str) -> JsonProblem:
    shown = pointer if len(pointer) <= 80 else pointer[:77] + "..."
    return JsonProblem(code, message, shown or "/", pointer=pointer)


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def objects_in_text(text: str, limit: int = 4096) -> list[dict[str, Any]]:
    """Every top-level JSON object in ``text``, in order: bare, inside fenced blocks, or amid prose.

    A message that is one object and nothing else is read by :func:`loads`' fast path. Otherwise each
    ``{`` (at most ``limit`` of them) is tried with a real JSON decoder, so braces inside strings cannot
    mislead it and nothing is repaired; after an object is found the search resumes past its end. Text
    that breaks the policy (NaN, a number beyond range, a lone surrogate, deep nesting) is not an object.

    Raises:
        JsonProblem: ``duplicate_key`` when an object repeats a key.
    """
    whole = _fast(text)
    return [whole] if type(whole) is dict else _search(text, limit)


def _search(text: str, limit: int) -> list[dict[str, Any]]:
    """The objects :func:`objects_in_text` finds, each ``{`` tried in turn."""
    found: list[dict[str, Any]] = []
    start = text.find("{")
    tried = 0
    while start != -1 and tried < limit:
        tried += 1
        try:
            _marks.found = False
            value, end = _DECODER.raw_decode(text, start)
            _check_if_marked(value, text, start, end)
        except JsonProblem as problem:
            if problem.code == "duplicate_key":
                raise
            value = None
        except (ValueError, RecursionError, _NotJson):
            value = None
        if type(value) is dict:
            found.append(value)
            start = text.find("{", end)
        else:
            start = text.find("{", start + 1)
    return found
