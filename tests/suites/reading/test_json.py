from __future__ import annotations

from tracegrade.suites.reading._json import ABSENT, canonical, json_key, pointer_tokens, resolve, valid_pointer


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


def test_canonical_writes_an_integer_beyond_64_bits_exactly() -> None:
    """The strict reader keeps such integers exact: a check compares them as written."""
    assert canonical({"a": [2**70]}) == b'{"a":[1180591620717411303424]}'
    assert json_key([2**70]) != json_key([float(2**70)])
