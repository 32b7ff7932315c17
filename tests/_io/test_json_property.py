"""Property tests: the fast reader's screens agree with an exact parser on arbitrary JSON text."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tracegrade._io import JsonProblem, loads

keys = st.sampled_from(["a", "b", 'q"', "c\\", "\u0022", "x:y", ""])
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))


@st.composite
def json_text(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 2 or draw(st.booleans()):
        return json.dumps(draw(scalars), ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        items = draw(st.lists(st.deferred(lambda: json_text(depth + 1)), max_size=3))
        return "[" + ",".join(items) + "]"
    pairs = draw(st.lists(st.tuples(keys, st.deferred(lambda: json_text(depth + 1))), max_size=4))
    space = draw(st.sampled_from(["", " ", "\n"]))
    body = ",".join(f"{json.dumps(k, ensure_ascii=draw(st.booleans()))}{space}:{space}{v}" for k, v in pairs)
    return "{" + body + "}"


def has_duplicates(text: str) -> bool:
    found = False

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal found
        names = [k for k, _ in pairs]
        found = found or len(names) != len(set(names))
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return found


@settings(max_examples=400, deadline=None)
@given(json_text())
def test_duplicate_screen_is_exact(text: str) -> None:
    try:
        loads(text.encode())
        rejected = False
    except JsonProblem as problem:
        assert problem.code == "duplicate_key"
        rejected = True
    assert rejected == has_duplicates(text)


digits = st.text(alphabet="0123456789", min_size=1, max_size=25)


@st.composite
def number_literal(draw: st.DrawFn) -> str:
    """A JSON number: any integer part (up to 25 digits), maybe a fraction, maybe an exponent up to 3 digits."""
    whole = draw(digits).lstrip("0") or "0"
    fraction = draw(st.sampled_from(["", "." + draw(digits)]))
    exponent = draw(st.sampled_from(["", "e", "E"]))
    if exponent:
        exponent += draw(st.sampled_from(["", "+", "-"])) + str(draw(st.integers(0, 400)))
    return draw(st.sampled_from(["", "-"])) + whole + fraction + exponent


@settings(max_examples=500, deadline=None)
@given(st.lists(number_literal(), min_size=1, max_size=6), st.integers(0, 6000))
def test_numbers_are_read_as_the_standard_library_reads_them(literals: list[str], padding: int) -> None:
    """Every number, in a small or large document, is what ``json.loads`` reads (an int exactly, else a double);
    a number beyond a double's range is refused."""
    text = '{"pad": "' + "x" * padding + '", "n": [' + ", ".join(literals) + "]}"
    expected = json.loads(text)["n"]
    if any(isinstance(number, float) and math.isinf(number) for number in expected):
        try:
            loads(text.encode())
        except JsonProblem as problem:
            assert problem.code == "number_out_of_range"
            return
        raise AssertionError("a number beyond a double was read")
    got = loads(text.encode())["n"]
    assert [(type(number), number) for number in got] == [(type(number), number) for number in expected]
