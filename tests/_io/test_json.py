from __future__ import annotations

import json

import msgspec
import orjson
import pytest

from tracegrade._io import MAX_DEPTH, JsonProblem, decode_typed, loads, loads_many, loads_written, objects_in_text


def _problem(data: bytes | str) -> JsonProblem:
    with pytest.raises(JsonProblem) as caught:
        loads(data)
    return caught.value


def test_compact_and_indented_documents_are_read_as_orjson_reads_them() -> None:
    value = {"a": [1, {"b": "c\\\""}], "d": None, "e": 2.5, "f": "\u00e9"}
    assert loads(orjson.dumps(value)) == value
    assert loads(orjson.dumps(value, option=orjson.OPT_INDENT_2)) == value
    assert loads(orjson.dumps(value).decode()) == value


@pytest.mark.parametrize("text", [
    b'{\n  "a": 1,\n  "b": {\n    "c": 2,\n    "c": 3\n  }\n}',
    b'{\n  "a": 1,\n  "b": [\n    2\n  ],\n  "a": 4\n}',
    # the quotes the repeated key loses, gained back by escapes written \u0022:
    b'{\n  "a": 1,\n  "b": "\\u0022\\u0022",\n  "b": 2\n}',
])
def test_an_indented_document_with_a_repeated_key_is_refused(text: bytes) -> None:
    """Indented as json.dumps(indent=2) writes it, with or without a final newline."""
    for data in (text, text + b"\n"):
        assert _problem(data).code == "duplicate_key"


@pytest.mark.parametrize("literal", [123456789012345678901234, -(2**64), 2**64 - 1])
def test_an_indented_document_keeps_every_integer_exactly(literal: int) -> None:
    text = json.dumps({"steps": [{"id": literal, "n": [1, literal]}]}, indent=2).encode() + b"\n"
    assert loads(text) == {"steps": [{"id": literal, "n": [1, literal]}]}


def test_an_indented_document_at_the_nesting_limit_is_read_and_beyond_it_refused() -> None:
    deep: list[object] = []
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    assert loads(orjson.dumps(deep, option=orjson.OPT_INDENT_2)) == deep
    assert _problem(orjson.dumps(deep, option=orjson.OPT_INDENT_2).replace(b"[]", b"[[]]", 1)).code == "too_deep"


@pytest.mark.parametrize("text", [b'{"a":1,"a":1}', b'{"x":{"a":1,"a":2}}', b'[{"a":"\\"","a":"\\""}]',
                                  b'{"x\\u0022": 1, "x\\"": 2}',
                                  # the quotes the repeated key loses, gained back by escapes written \u0022:
                                  b'{"a": 1, "a": "\\u0022\\u0022"}',
                                  b'{"p": "%s", "a": 1, "a": "\\u0022\\u0022"}' % (b"x" * 5000)])
def test_a_repeated_key_is_refused_at_its_pointer(text: bytes) -> None:
    problem = _problem(text)
    assert problem.code == "duplicate_key"
    assert problem.pointer is not None and problem.where == problem.pointer


def test_the_pointer_of_a_repeated_key_is_escaped() -> None:
    assert _problem(b'{"a/b": {"~": 1, "~": 2}}').pointer == "/a~1b/~0"


@pytest.mark.parametrize("text", [b'{"a": NaN}', b'{"a": Infinity}', b'[-Infinity]'])
def test_nan_and_infinity_are_refused(text: bytes) -> None:
    problem = _problem(text)
    assert (problem.code, problem.message) == ("invalid_json", "NaN and Infinity are not JSON")
    assert problem.line == 1 and problem.column is not None


def test_a_number_beyond_a_double_is_refused() -> None:
    assert (_problem(b'{"a": 1e400}').code, _problem(b'{"a": 1e400}').pointer) == ("number_out_of_range", "/a")


@pytest.mark.parametrize("literal", [123456789012345678901234, -(2**70), 2**64, -(2**63) - 1, 2**128 - 1, 2**63 - 1,
                                     2**63, 2**64 - 1, -(2**63), -(2**64)])
def test_an_integer_is_read_exactly_however_wide(literal: int) -> None:
    # spaced, compact (orjson writes it back otherwise), and large (numpy counts the quotes)
    for text in (b'{"a": [%d]}' % literal, b'{"a":[%d]}' % literal, b'{"p": "%s", "a": [%d]}' % (b"x" * 5000, literal)):
        assert loads(text)["a"] == [literal] and type(loads(text)["a"][0]) is int
        assert loads(text.decode())["a"] == [literal]


@pytest.mark.parametrize(("text", "value"), [
    (b"[1e+18, 1E16, 12345678901234567890.5, -9.3e18]", [1e18, 1e16, 12345678901234567890.5, -9.3e18]),
    (b'["3e+5", "1e+23", 1]', ["3e+5", "1e+23", 1]),
    (b'{"a":1e+300}', {"a": 1e300}),
])
def test_large_floats_and_text_like_them_are_read_as_written(text: bytes, value: object) -> None:
    """A float that orjson writes back with ``e+`` sends the document to the exact reader: the same values."""
    got = loads(text)
    assert got == value
    assert [type(item) for item in (got if isinstance(got, list) else got.values())] == [
        type(item) for item in (value if isinstance(value, list) else value.values())  # type: ignore[attr-defined]
    ]


def test_an_integer_python_will_not_convert_is_refused() -> None:
    assert _problem(b"[" + b"9" * 5000 + b"]").code == "number_out_of_range"


@pytest.mark.parametrize("text", [b'{"a": "\\ud800"}', b'["x\\udfff"]', b'{"\\ud800": 1}', '{"a": "\ud800"}'])
def test_a_lone_surrogate_is_refused(text: bytes | str) -> None:
    assert _problem(text).code == "lone_surrogate"


def test_a_surrogate_pair_is_one_character() -> None:
    assert loads(b'["\\ud83d\\ude00"]') == ["\U0001f600"]


@pytest.mark.parametrize("text", [b'{"a": "\xff"}', b"\xef\xbb", b'["\xed\xa0\x80"]'])
def test_invalid_utf8_is_refused_at_its_byte(text: bytes) -> None:
    problem = _problem(text)
    assert problem.code == "invalid_utf8" and problem.where.startswith("byte ")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 600, 1024, 5000])
def test_nesting_beyond_the_limit_is_refused(depth: int) -> None:
    assert _problem(b'{"a": ' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}").code == "too_deep"


def test_nesting_at_the_limit_is_read() -> None:
    assert loads(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None


def test_syntax_errors_name_line_and_column() -> None:
    problem = _problem(b'{\n  "a": }')
    assert (problem.code, problem.where, problem.line, problem.column) == ("invalid_json", "line 2, column 8", 2, 8)


def test_the_place_of_a_problem_in_a_large_document_is_found_past_the_screens_slices() -> None:
    """The screens read a large document a megabyte at a time: a run of digits across two slices is found."""
    filler = b'{"a": "' + b"x" * ((1 << 20) - 20) + b'"}, '
    for shift in range(0, 24, 5):
        text = b"[" + b" " * shift + filler + b"123456789012345678901234]"
        assert loads(text)[-1] == 123456789012345678901234
    many = b"[" + b'{"a": 1}, ' * 200_000 + b'{"b": 1, "b": 2}]'
    assert _problem(many).pointer == "/200000/b"


@pytest.mark.parametrize("documents", [
    [b'{"a": 1}', b'{"b": [1, 2.5, "x"]}', b"[]", b'"s"', b"null"],
    [b'{"a": "\\"quoted\\" \\u00e9"}', b'{"b": 123456789012345678}'],
])
def test_many_documents_read_as_each_reads_alone(documents: list[bytes]) -> None:
    assert loads_many(documents) == [loads(d) for d in documents]


@pytest.mark.parametrize("bad", [
    b'{"a": 1, "a": 2}', b'{"a": {"b": 1, "b": 1}}', b'{"a": 1', b'{"a": 1} {}', b"[NaN]",
    b'{"x": 123456789012345678901234}', b'{"x": "\\u0022", "x": 1}', b'{"x": 1, "x": "\\u0022\\u0022"}',
    b"[" * 300 + b"]" * 300, b"\xff",
])
def test_many_documents_with_one_in_doubt_are_left_to_read_one_by_one(bad: bytes) -> None:
    assert loads_many([b'{"ok": 1}', bad, b'{"ok": 2}']) is None


class _Pair(msgspec.Struct):
    a: int
    b: list[str]


@pytest.mark.parametrize("text", [b'{"a": 1, "b": ["x"], "a": 2}', b'{"a": 1234567890123456789012, "b": []}',
                                  b'{"a": 1, "b": ["\\u0022"]}'])
def test_typed_decoding_leaves_anything_in_doubt_to_the_strict_reader(text: bytes) -> None:
    assert decode_typed(text, _Pair) is None


def test_typed_decoding_reads_what_is_surely_strict() -> None:
    decoded = decode_typed(b'{"a": 1, "b": ["x", "y"]}', _Pair)
    assert decoded == _Pair(1, ["x", "y"])


def test_own_files_are_read_as_written() -> None:
    assert loads_written(b'{"a": [1, 2]}') == {"a": [1, 2]}


def test_objects_in_text_finds_each_object_amid_prose() -> None:
    text = 'I read {"x": "}"} and answer:\n```json\n{"score": 3}\n```'
    assert objects_in_text(text) == [{"x": "}"}, {"score": 3}]


def test_objects_in_text_skips_what_breaks_the_policy_but_refuses_a_repeated_key() -> None:
    assert objects_in_text('{"a": NaN} then {"b": 1}') == [{"b": 1}]
    assert objects_in_text('["\\ud800"] {"b": 2}') == [{"b": 2}]
    with pytest.raises(JsonProblem) as caught:
        objects_in_text('prose {"a": 1, "a": 2}')
    assert caught.value.code == "duplicate_key"


def test_own_files_are_decoded_into_typed_records_as_written() -> None:
    assert loads_written(b'{"a": 1, "b": []}', _Pair) == _Pair(1, [])
    with pytest.raises(ValueError):
        loads_written(b'{"a": "x", "b": []}', _Pair)
