from __future__ import annotations

import random
import re
from typing import Any

import msgspec
import orjson
import pytest

from tests.suites.helpers import case, case_json, expectation
from tests.suites.reading.test_columns import GOOD, INVALID, RAWS
from tracegrade._io import JsonProblem
from tracegrade._io import loads as loads_strict
from tracegrade.suites.reading._case_file import case_file_columns
from tracegrade.suites.reading._columns import CaseColumns, Layout, case_columns


def _columns(data: bytes) -> CaseColumns | None:
    decoded = case_file_columns(data)
    return None if decoded is None else decoded[0]


def _same(found: CaseColumns | None, expected: CaseColumns | None) -> None:
    assert found is not None and expected is not None
    assert (found.ids, found.inputs, found.golds) == (expected.ids, expected.inputs, expected.golds)
    assert [_fields(layout) for layout in found.layouts] == [_fields(layout) for layout in expected.layouts]
    assert [case_json(found, n) for n in range(len(found.ids))] == [
        case_json(expected, n) for n in range(len(expected.ids))]


def _fields(layout: Layout) -> list[tuple[Any, ...]]:
    return [(s.name, s.path, s.comparison, s.each, s.absent_as_null) for s in layout.shapes]


def test_a_case_file_reads_as_the_columns_of_its_decoded_cases() -> None:
    data = orjson.dumps(RAWS)
    _same(_columns(data), case_columns(loads_strict(data)))
    spaced = b'[ {"expectations": [ {"path" : "/x", "name":"a", "expected" : [1, {"k": "\\"q\\""}]} ],\n'\
             b' "input": {"metadata": null, "payload": "\\u00e9\\n"}, "id": "c\\\\"} ]'
    _same(_columns(spaced), case_columns(loads_strict(spaced)))
    for document in (data, spaced):
        decoded = case_file_columns(document)
        assert decoded is not None and msgspec.to_builtins(decoded[1]) == loads_strict(document)


def test_cases_with_the_same_checks_share_shapes_and_a_layout() -> None:
    cases = [case(f"c{i}", expectation("a", "/a", i), expectation("b", "/b", [i], comparison="set")) for i in range(3)]
    columns = _columns(orjson.dumps([*cases, RAWS[0], RAWS[3]]))  # the last two: one shape spelt two ways
    assert columns is not None
    assert columns.layouts[0] is columns.layouts[1] is columns.layouts[2] is not columns.layouts[3]
    assert columns.layouts[3] is columns.layouts[4]


def test_floats_and_integers_decode_as_the_strict_reader_decodes_them() -> None:
    rng = random.Random(5)
    values: list[Any] = [rng.uniform(-1e6, 1e6) for _ in range(2000)] + [rng.random() * 10 ** rng.randint(-300, 300)
                                                                       for _ in range(2000)]
    values += [-0.0, 0.0, 1e-320, 5e-324, 1.7976931348623157e308, 10**17, -(10**17), 2**53 + 1]
    values = [v for v in values if not re.search(rb"[0-9]{19}", orjson.dumps(v))]  # 19 digits in a row: read exactly
    assert len(values) > 3000
    data = orjson.dumps([case("c", expectation("v", "/v", values))])
    columns = _columns(data)
    assert columns is not None
    decoded = loads_strict(data)[0]["expectations"][0]["expected"]
    assert [(type(v), repr(v)) for v in columns.golds[0][0]] == [(type(v), repr(v)) for v in decoded]


@pytest.mark.parametrize("bad", INVALID, ids=range(len(INVALID)))
def test_a_case_the_models_refuse_is_left_to_them(bad: Any) -> None:
    assert case_file_columns(orjson.dumps([case("ok", GOOD), bad])) is None


def _document(case_id: str = '"c"', payload: str = "1", gold: str = "1", expectation: str = "") -> bytes:
    """One case as JSON text, its parts spliced in as written."""
    written = expectation or f'{{"name": "a", "path": "", "expected": {gold}}}'
    return f'[{{"id": {case_id}, "input": {{"payload": {payload}}}, "expectations": [{written}]}}]'.encode()


REFUSED_OR_EXACT = [
    _document(case_id='"c", "id": "d"'), _document(expectation='{"name": "a", "name": "b", "path": "", "expected": 1}'),
    _document(payload='{"k": 1, "k": 2}'), _document(gold='{"k": 1, "k": 1}'), _document(case_id='"c\\u0022"'),
    _document(gold="1234567890123456789"), _document(gold="NaN"), _document(gold="1e400"),
    _document(payload='"\\ud800"'), _document() + b" x", _document(gold="1,"),
    _document()[1:-1], b'["c.json"]', b"[]", b"\xff", b"",
]


@pytest.mark.parametrize("data", REFUSED_OR_EXACT, ids=range(len(REFUSED_OR_EXACT)))
def test_what_the_strict_reader_refuses_or_reads_exactly_is_left_to_it(data: bytes) -> None:
    assert case_file_columns(data) is None


@pytest.mark.parametrize("where", ["gold", "payload", "metadata"])
def test_nesting_is_refused_at_the_depth_the_strict_reader_refuses(where: str) -> None:
    accepted = []
    for depth in range(245, 260):
        value: Any = 1
        for _ in range(depth):
            value = [value] if where != "metadata" else {"k": value}
        raw = case("c", expectation("a", "", value if where == "gold" else 1))
        raw["input"] = {"payload": value} if where == "payload" else {"payload": 1, "metadata": value} \
            if where == "metadata" else raw["input"]
        data = orjson.dumps([raw]) if depth < 250 else _nested_json(raw, where, depth)
        try:
            loads_strict(data)
        except JsonProblem:
            strict = False
        else:
            strict = True
        assert (case_file_columns(data) is not None) == strict
        accepted.append(strict)
    assert True in accepted and False in accepted  # the limit lies inside the range tried


def _nested_json(raw: dict[str, Any], where: str, depth: int) -> bytes:
    """``raw`` as JSON with the nested value written by hand (orjson cannot write the deepest ones)."""
    opening, closing = ("[" * depth, "]" * depth) if where != "metadata" else ('{"k":' * depth, "}" * depth)
    inner = f"{opening}1{closing}"
    if where == "gold":
        return _document(gold=inner)
    return _document(payload=inner if where == "payload" else f'1, "metadata": {inner}')


EDGES = [b"1.", b".5", b"+1", b"1e", b"1e309", b"1e-400", b"0x10", b"00", b"-01", b"1.0E+2", b'"\\x"', b'"\\/"',
         b'"\\u00"', b'"\\uD83D\\uDE00"', b'"\\uDE00"', b'"a\tb"', b'"\x7f"', b"True", b"nul", b"[1 2]", b'{"a" 1}',
         b'{"a":1,}', b"{1:2}", b"'a'", b'"\xc3\x28"', b'"\xed\xbf\xbf"', b"9223372036854775807", b"4.9e-324",
         b"0.1e1", b"-0.0", b"1E-7"]


@pytest.mark.parametrize("gold", EDGES, ids=range(len(EDGES)))
def test_what_is_read_fast_the_strict_reader_reads_alike(gold: bytes) -> None:
    head, tail = _document(gold="GOLD").split(b"GOLD")
    for data in (head + gold + tail, b"\r\n\t " + head + gold + tail + b" ", head + gold + tail + b"\x0c"):
        columns = _columns(data)
        assert columns is not None or gold not in (b"1E-7", b"-0.0", b'"\\/"') or data.endswith(b"\x0c")
        if columns is not None:
            decoded = loads_strict(data)[0]["expectations"][0]["expected"]
            assert (type(columns.golds[0][0]), repr(columns.golds[0][0])) == (type(decoded), repr(decoded))


def test_the_fast_reader_takes_what_the_models_take_at_their_bounds() -> None:
    """Its records are made from the models: an id of 512 characters (not bytes) and 1,024 expectations pass."""
    many = [expectation(f"e{i}", "/x", i, comparison="set" if i % 2 else "exact") for i in range(1024)]
    data = orjson.dumps([case("\u00e9" * 512, GOOD), {**case("c", GOOD), "expectations": many}])
    _same(_columns(data), case_columns(loads_strict(data)))
    columns = _columns(data)
    assert columns is not None and len(columns.layouts[1].shapes) == 1024
