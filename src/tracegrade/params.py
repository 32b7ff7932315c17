"""Describe parameter models (pydantic) for the places that list parameters: provider tables, help, metadata."""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from enum import Enum
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

__all__ = ["field_type_name", "parameter_table"]

_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"), (int, "integer"), (float, "float"), (str, "string"), (dict, "object"), (list, "array"),
)


def field_type_name(annotation: Any) -> str:
    """The JSON-ish type name of a field annotation (``string``, ``integer``, ``float``, ``boolean``, ``object``)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        names = [field_type_name(a) for a in typing.get_args(annotation) if a is not type(None)]
        return "object" if "object" in names else names[0]
    if origin is typing.Annotated:
        return field_type_name(typing.get_args(annotation)[0])
    base = origin or annotation
    if isinstance(base, type) and issubclass(base, Enum):
        return "string"
    for kind, name in _TYPE_NAMES:
        if isinstance(base, type) and issubclass(base, kind):
            return name
    return "string"


def parameter_table(model: type[BaseModel], *, first: Sequence[str] = ()) -> list[tuple[str, str, str]]:
    """``(name, type, description)`` per field of ``model``; the description ends with the default, if any."""
    fields = model.model_fields
    order = [*first, *(name for name in fields if name not in first)]
    return [(name, field_type_name(fields[name].annotation), _described(fields[name])) for name in order]


def _described(field: FieldInfo) -> str:
    text = field.description or ""
    default = field.default
    if field.is_required() or default is None or (default is False and field.annotation is not bool):
        return text
    shown = default.value if isinstance(default, Enum) else default
    shown = str(shown).lower() if isinstance(shown, bool) else shown
    return f"{text} Default {shown}."
