from __future__ import annotations

from dataclasses import dataclass

import orjson
import pytest

from tracegrade._io import INDENTED, Pieces, dumps, items_piece, write_document

PLAIN = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
ITEMS = [{"b": [1, {"x": "y\nz"}], "a": {}}, [], {}, "q", 2**70, None, 1.5]


def test_an_integer_beyond_64_bits_is_written_exactly() -> None:
    assert dumps({"a": [2**70, -(2**64)], "b": 1}) == b'{"a":[1180591620717411303424,-18446744073709551616],"b":1}'
    assert dumps({"a": 1}, INDENTED) == orjson.dumps({"a": 1}, option=INDENTED)


def test_what_orjson_refuses_for_another_reason_is_still_refused() -> None:
    with pytest.raises(TypeError):
        dumps({"a": object()})


@pytest.mark.parametrize("option", [INDENTED, PLAIN])
@pytest.mark.parametrize("split", [0, 1, 3, len(ITEMS)])
def test_a_document_written_in_pieces_is_the_document_written_whole(option: int, split: int) -> None:
    pieces = [items_piece(ITEMS[:split], option), items_piece([], option), items_piece(ITEMS[split:], option)]
    document = {"z": 1, "inputs": Pieces(pieces), "a": [{"k": Pieces([items_piece(ITEMS, option)]), "e": []}, 3],
                "m": {"x": {}}, "empty": Pieces([])}
    whole = {"z": 1, "inputs": ITEMS, "a": [{"k": ITEMS, "e": []}, 3], "m": {"x": {}}, "empty": []}
    assert b"".join(write_document(document, option)) == dumps(whole, option)


def test_items_already_indented_for_their_place_are_written_as_they_are() -> None:
    texts = [b"    " + orjson.dumps(item, option=INDENTED).replace(b"\n", b"\n    ") for item in ITEMS[:3]]
    document = {"nodes": Pieces([b",\n".join(texts[:2]), b"", texts[2]], indented=True)}
    assert b"".join(write_document(document)) == dumps({"nodes": ITEMS[:3]}, INDENTED)


@dataclass(frozen=True)
class _Record:
    name: str
    score: float


def test_records_orjson_writes_natively_go_in_pieces_too() -> None:
    records = [_Record("a", 0.5), _Record("b", 1.0)]
    document = {"suites": [{"name": "s", "attempts": Pieces([items_piece(records[:1], PLAIN),
                                                           items_piece(records[1:], PLAIN)])}]}
    assert b"".join(write_document(document, PLAIN)) == orjson.dumps(
        {"suites": [{"name": "s", "attempts": records}]}, option=PLAIN)
