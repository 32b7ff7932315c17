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
