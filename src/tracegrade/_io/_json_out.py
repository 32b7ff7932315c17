"""The product's JSON writer: orjson's bytes, integers of any width, and large documents written in pieces."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

__all__ = ["INDENTED", "Pieces", "dumps", "items_piece", "write_document"]

INDENTED = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
"""Indented, key-sorted JSON: how the product writes the files a user reads."""
_WIDE = (-(2**63), 2**64 - 1)


def dumps(value: Any, option: int = 0) -> bytes:
    """``value`` as orjson writes it with ``option``; an integer beyond 64 bits is written exactly.

    The strict reader keeps such integers exact (docs/json-policy.md), so what was read can be written back.
    """
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError as exc:
        if "64-bit" not in str(exc):
            raise
    return orjson.dumps(_exact_ints(value), option=option)


def _exact_ints(value: Any) -> Any:
    """``value`` with each integer orjson cannot hold replaced by its digits as a raw fragment."""
    kind = type(value)
    if kind is int:
        return value if _WIDE[0] <= value <= _WIDE[1] else orjson.Fragment(str(value).encode())
    if kind is dict:
        return {key: _exact_ints(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_exact_ints(item) for item in value]
    return value


class Pieces:
    """A list of a large document whose items arrive in pieces, each encoded as it comes.

    A piece is a slice of the list's items as :func:`items_piece` writes it (a list of its own, at the
    top level); ``indented`` pieces are instead the items' text already indented for their place, joined
    by a comma and a new line.
    """

    __slots__ = ("chunks", "indented")

    def __init__(self, chunks: Iterable[bytes], *, indented: bool = False) -> None:
        self.chunks = chunks
        self.indented = indented


def items_piece(values: Iterable[Any], option: int = INDENTED) -> bytes:
    """``values`` as one piece of a :class:`Pieces` list."""
    return dumps(values if type(values) is list else list(values), option)


def write_document(value: Any, option: int = INDENTED) -> Iterator[bytes | memoryview]:
    """The bytes of ``dumps(value, option)`` in pieces, where ``value`` holds :class:`Pieces` lists.

    Only indented documents (``option`` holds ``OPT_INDENT_2``) may hold pieces; containers that hold none
    are written whole by orjson, the others member by member.
    """
    yield from _write(value, option, 0)


def _write(value: Any, option: int, depth: int) -> Iterator[bytes | memoryview]:
    if not _holds_pieces(value):
        text = dumps(value, option)
        yield text.replace(b"\n", b"\n" + b"  " * depth) if depth else text
        return
    pad, inner = b"  " * depth, b"  " * (depth + 1)
    if type(value) is Pieces:
        first = True
        for chunk in value.chunks:
            if value.indented:
                if chunk:
                    yield (b"[\n" if first else b",\n") + chunk
                    first = False
            elif chunk != b"[]":  # "[\n  item,\n  item\n]": its items, indented one level deeper per level
                text = chunk.replace(b"\n", b"\n" + pad) if depth else chunk
                yield b"[\n" if first else b",\n"
                yield memoryview(text)[2:-(len(pad) + 2)]
                first = False
        yield b"[]" if first else b"\n" + pad + b"]"
        return
    if type(value) is list:
        for index, item in enumerate(value):
            yield (b"[\n" if index == 0 else b",\n") + inner
            yield from _write(item, option, depth + 1)
        yield b"\n" + pad + b"]"
        return
    keys = sorted(value) if option & orjson.OPT_SORT_KEYS else list(value)
    for index, key in enumerate(keys):
        yield (b"{\n" if index == 0 else b",\n") + inner + orjson.dumps(key) + b": "
        yield from _write(value[key], option, depth + 1)
    yield b"\n" + pad + b"}"


def _holds_pieces(value: Any) -> bool:
    kind = type(value)
    if kind is Pieces:
        return True
    if kind is dict:
        return any(_holds_pieces(item) for item in value.values())
    if kind is list:
        return any(_holds_pieces(item) for item in value)
    return False
