from __future__ import annotations

import pytest

from tracegrade.suites.reading._json import (
    ABSENT,
    JsonProblem,
    canonical,
    loads_strict,
    needs_exact_reading,
    pointer_tokens,
    resolve,
    valid_pointer,
)


def test_duplicate_keys_are_refused_with_the_key() -> None:
    with pytest.raises(JsonProblem, match="duplicate key 'a'"):
        loads_strict(b'{"a": 1, "a": 2}')


@pytest.mark.parametrize("text", [b'{"a": NaN}', b'{"a": Infinity}', b'{"a": 1e400}',
                                  b'{"a": 99999999999999999999999}', b'{"a": -9223372036854775809}'])
def test_nan_infinity_and_overflow_are_refused(text: bytes) -> None:
    with pytest.raises(JsonProblem):
        loads_strict(text)


def test_escaped_quotes_and_long_digit_runs_need_the_exact_reader() -> None:
    assert needs_exact_reading(b'{"a": "\\u0022"}') and needs_exact_reading(b'{"a": 1234567890123456789}')
    assert not needs_exact_reading(b'{"a": 123456789012345678, "b": "\\""}')


def test_syntax_errors_name_line_and_column() -> None:
    with pytest.raises(JsonProblem) as info:
        loads_strict(b'{\n  "a": }')
    assert info.value.where == "line 2, column 8"


def test_pointer_syntax_and_escapes() -> None:
    assert valid_pointer("") and valid_pointer("/a~1b/~0c")
    assert not valid_pointer("a/b") and not valid_pointer("/a~2") and not valid_pointer("/a~")
    assert pointer_tokens("/a~1b/~0c") == ("a/b", "~c")


def test_resolve_distinguishes_absent_from_null() -> None:
    doc = {"a": [{"b": None}]}
    assert resolve(doc, ("a", "0", "b")) is None
    assert resolve(doc, ("a", "0", "c")) is ABSENT
    assert resolve(doc, ("a", "01")) is ABSENT
    assert resolve(doc, ("a", "1")) is ABSENT


def test_canonical_is_type_sensitive_and_key_order_free() -> None:
    assert canonical(True) != canonical(1)
    assert canonical({"b": 1, "a": 2}) == canonical({"a": 2, "b": 1})


@pytest.mark.parametrize("depth", [255, 600, 1024])
def test_nesting_orjson_cannot_write_back_is_too_deep(depth: int) -> None:
    """Issue 23 item 5, in the suites' reader: a traceback from the quote-count screen before."""
    with pytest.raises(JsonProblem, match="JSON nesting is too deep"):
        loads_strict(b'{"a": ' + b"[" * depth + b"]" * depth + b"}")


@pytest.mark.parametrize("documents", [
    [b'{"a": 1}', b'{"b": [1, 2.5, "x"]}', b'[]', b'"s"', b'null'],
    [b'{"a": "\\"quoted\\" \\u00e9"}', b'{"b": 123456789012345678}'],
])
def test_many_documents_read_as_each_reads_alone(documents: list[bytes]) -> None:
    from tracegrade.suites.reading._json import loads_strict_many

    assert loads_strict_many(documents) == [loads_strict(d) for d in documents]


@pytest.mark.parametrize("bad", [
    b'{"a": 1, "a": 2}', b'{"a": {"b": 1, "b": 1}}', b'{"a": 1', b'{"a": 1} {}', b"[NaN]",
    b'{"x": 123456789012345678901234}', b'{"x": "\\u0022", "x": 1}', b"[" * 300 + b"]" * 300, b"\xff",
])
def test_many_documents_with_one_that_may_be_refused_are_left_to_read_one_by_one(bad: bytes) -> None:
    """Each screen of ``loads_strict`` holds over the batch, and a lost duplicate key anywhere is seen."""
    from tracegrade.suites.reading._json import loads_strict_many

    assert loads_strict_many([b'{"ok": 1}', bad, b'{"ok": 2}']) is None


@pytest.mark.parametrize("offset", range(0, 40, 3))
def test_screens_of_a_large_document_in_slices_miss_nothing(offset: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long run of digits across two byte slices, or a duplicate key in a later slice of items, is found."""
    from tracegrade.suites.reading import _json

    monkeypatch.setattr(_json, "_SLICE_BYTES", 32)
    monkeypatch.setattr(_json, "_SLICE_ITEMS", 2)
    items = b"[" + b" " * offset + b'{"a": 1}, ' * 5
    with pytest.raises(JsonProblem, match="overflows 64 bits"):
        loads_strict(items + b"99999999999999999999999]")
    with pytest.raises(JsonProblem, match="duplicate key 'b'"):
        loads_strict(items + b'{"b": 1, "b": 2}]')
    fine = items + b'{"b": 1, "c": [1234567890123456789, "x"]}]'
    assert loads_strict(fine) == [{"a": 1}] * 5 + [{"b": 1, "c": [1234567890123456789, "x"]}]
