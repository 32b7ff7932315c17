from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pytest
from annotated_types import Interval
from pydantic import BaseModel, Field, StringConstraints

from tracegrade._io import record_struct


class _Inner(BaseModel):
    label: Annotated[str, StringConstraints(min_length=1, max_length=3, pattern=r"\S")]
    weight: float = 0.5
    note: str | None = None


class _Outer(BaseModel):
    name: str
    score: Annotated[float, Interval(ge=0.0, le=1.0)] | None = None
    items: Annotated[list[_Inner], Field(min_length=1)]
    tags: list[str] = Field(default_factory=list)
    extra: dict[str, Any] | None = None


def _decode(kind: type[Any], text: bytes) -> Any:
    return msgspec.json.decode(text, type=kind)


def test_the_struct_reads_what_the_record_reads_with_its_defaults() -> None:
    outer = record_struct(_Outer)
    text = b'{"name": "a", "items": [{"label": "x"}], "ignored": 1}'
    value = _decode(outer, text)
    record = _Outer.model_validate_json(text.replace(b', "ignored": 1', b""))
    assert msgspec.structs.asdict(value)["tags"] == record.tags == []
    assert (value.name, value.score, value.extra) == (record.name, record.score, record.extra)
    assert msgspec.structs.asdict(value.items[0]) == record.items[0].model_dump()


@pytest.mark.parametrize(("text", "message"), [
    (b'{"name": "a", "score": 1.5, "items": [{"label": "x"}]}', r"Expected `float` <= 1.0 - at `\$.score`"),
    (b'{"name": "a", "items": []}', r"Expected `array` of length >= 1 - at `\$.items`"),
    (b'{"name": "a", "items": [{"label": "long"}]}', r"Expected `str` of length <= 3 - at `\$.items\[0\].label`"),
    (b'{"name": "a", "items": [{"label": "  "}]}', r"Expected `str` matching regex '\\\\S' - at `\$.items\[0\].label`"),
    (b'{"items": [{"label": "x"}]}', r"missing required field `name`"),
])
def test_the_records_bounds_hold_on_the_struct(text: bytes, message: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=message):
        _decode(record_struct(_Outer), text)
    with pytest.raises(ValueError, match="validation error"):
        _Outer.model_validate_json(text)


def test_named_fields_only_and_a_given_view_for_a_nested_record() -> None:
    inner = record_struct(_Inner, ("label",), name="Label", frozen=True)
    outer = record_struct(_Outer, ("name", "items"), views={_Inner: inner}, frozen=True)
    value = _decode(outer, b'{"name": "a", "score": 9, "items": [{"label": "x", "weight": 7}]}')
    assert [f.name for f in msgspec.structs.fields(outer)] == ["name", "items"]
    assert type(value.items[0]) is inner and value.items[0].label == "x"


def test_unset_tells_a_field_left_out_from_one_written() -> None:
    inner = record_struct(_Inner, unset=True, forbid_unknown_fields=True)
    value = _decode(list[inner], b'[{"label": "x", "note": null}]')[0]  # type: ignore[valid-type]
    assert (value.weight, value.note) == (msgspec.UNSET, None)
    with pytest.raises(msgspec.ValidationError, match="unknown field `other`"):
        _decode(inner, b'{"label": "x", "other": 1}')


def test_a_constraint_the_struct_cannot_hold_is_refused_when_made() -> None:
    class Odd(BaseModel):
        value: Annotated[int, Field(multiple_of=2)]

    with pytest.raises(TypeError, match=r"Odd\.value: the constraint .*multiple_of"):
        record_struct(Odd)


def test_without_bounds_only_the_types_are_read() -> None:
    loose = record_struct(_Outer, bounds=False)
    value = _decode(loose, b'{"name": "a", "score": 1.5, "items": [{"label": "long"}]}')
    assert (value.score, value.items[0].label) == (1.5, "long")
    with pytest.raises(msgspec.ValidationError, match=r"Expected `float \| null`, got `str` - at `\$.score`"):
        _decode(loose, b'{"name": "a", "score": "x", "items": []}')


def test_a_frozen_struct_holds_the_records_lists_as_tuples() -> None:
    frozen = record_struct(_Outer, frozen=True, gc=False)
    value = _decode(frozen, b'{"name": "a", "items": [{"label": "x"}]}')
    assert type(value.items) is tuple and value.tags == () and type(value.items[0]).__name__ == "_Inner"
    assert type(_decode(record_struct(_Outer), b'{"name": "a", "items": [{"label": "x"}]}').items) is list
