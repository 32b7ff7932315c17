"""Property test: the fast duplicate-key screen agrees with an exact parser on arbitrary JSON text."""

from __future__ import annotations

import json
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
