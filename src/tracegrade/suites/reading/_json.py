"""Canonical JSON and RFC 6901 pointers for suites."""

from __future__ import annotations

import functools
import re
from typing import Any

import orjson

from tracegrade._io import dumps

__all__ = ["ABSENT", "Absent", "canonical", "json_key", "pointer_tokens", "resolve", "valid_pointer"]

_BAD_ESCAPE = re.compile(r"~(?:[^01]|$)")


class Absent:
    """The marker of a pointer that does not resolve (distinct from JSON null); :data:`ABSENT` is its one value."""

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT = Absent()
"""The one :class:`Absent` value."""


def canonical(value: Any) -> bytes:
    """Type-sensitive canonical JSON bytes (sorted keys, compact): ``true`` and ``1`` differ."""
    return dumps(value, orjson.OPT_SORT_KEYS)


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
