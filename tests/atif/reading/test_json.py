from __future__ import annotations

import orjson
import pytest

from tracegrade.atif.reading._json import JsonProblem, decode_strict


def test_compact_document_is_accepted() -> None:
    data = orjson.dumps({"a": [1, {"b": "c"}], "d": None})
    assert decode_strict(data) == {"a": [1, {"b": "c"}], "d": None}


@pytest.mark.parametrize("text", [b'{"a":1,"a":1}', b'{"x":{"a":1,"a":2}}', b'[{"a":"\\"","a":"\\""}]'])
def test_duplicate_in_compact_text_is_refused(text: bytes) -> None:
    with pytest.raises(JsonProblem) as caught:
        decode_strict(text)
    assert caught.value.code == "duplicate_key"


def test_pretty_printed_document_without_duplicates_is_accepted() -> None:
    data = orjson.dumps({"a": 1, "b": {"c": "\\"}}, option=orjson.OPT_INDENT_2)
    assert decode_strict(data) == {"a": 1, "b": {"c": "\\"}}


@pytest.mark.parametrize("depth", [255, 256, 600, 1024])
def test_nesting_orjson_cannot_write_back_is_too_deep(depth: int) -> None:
    """Issue 23 item 5: from 255 to 1,024 levels the duplicate-key screen raised orjson's TypeError."""
    with pytest.raises(JsonProblem) as caught:
        decode_strict(b'{"a": ' + b"[" * depth + b"]" * depth + b"}")
    assert caught.value.code == "too_deep"
    assert decode_strict(b"[" * 254 + b"]" * 254) is not None  # what orjson can write back is read
