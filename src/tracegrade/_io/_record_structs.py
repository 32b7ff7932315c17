"""msgspec structs made from pydantic records: the record is the one declaration, the struct a decoder of it.

A reader that decodes many records at once (a comparison of two judge runs, a large case file) decodes into a
struct made here from the record's fields: the same names, types, bounds and defaults, so the two cannot
disagree. The record stays pydantic where it is built, validated field by field and dumped with its rules;
the struct only reads.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Union, get_args, get_origin

import annotated_types
import msgspec
from pydantic import BaseModel

__all__ = ["record_struct"]

_BOUNDS: dict[type[Any], str] = {
    annotated_types.Ge: "ge", annotated_types.Gt: "gt", annotated_types.Le: "le", annotated_types.Lt: "lt",
    annotated_types.MinLen: "min_length", annotated_types.MaxLen: "max_length",
}


def record_struct(model: type[BaseModel], fields: Iterable[str] | None = None, *, name: str | None = None,
                  views: Mapping[type[BaseModel], type[msgspec.Struct]] | None = None, unset: bool = False,
                  bounds: bool = True, **options: Any) -> type[msgspec.Struct]:
    """A msgspec struct of ``model``'s ``fields`` (all by default), each with the record's type, bounds and default.

    A nested record is read into the struct ``views`` gives for it, else into a struct of all its fields made
    alike. With ``unset``, an optional field left out of the input is ``msgspec.UNSET`` instead of its default,
    so a reader can tell what was written. Without ``bounds`` the fields' own bounds (lengths, ranges, patterns)
    are left out, for a reader that validates what it keeps with the record itself. ``options`` are msgspec's
    (``frozen``, ``gc``, ``forbid_unknown_fields``...); fields are keyword-only, in the record's order. A frozen
    struct holds the record's lists as tuples: immutable like the struct, and a tuple of untracked structs is
    dropped from the garbage collector's watch, where a list stays on it.

    Raises:
        TypeError: a field with an alias or a constraint the struct cannot carry (it would accept more than
            the record).
    """
    views = dict(views or {})
    declared = model.model_fields
    chosen = list(declared) if fields is None else list(fields)
    specs: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for field_name in chosen:
        info = declared[field_name]
        if info.alias not in (None, field_name):
            raise TypeError(f"{model.__name__}.{field_name}: an alias is not carried over")
        kind = _converted(info.annotation, views, unset, bounds, options)
        if bounds:
            kind = _constrained(kind, info.metadata, model, field_name)
        if info.is_required():
            specs.append((field_name, kind))
        elif unset:
            specs.append((field_name, Union[kind, msgspec.UnsetType], msgspec.UNSET))  # noqa: UP007
        elif info.default_factory is list and get_origin(kind) is tuple:
            specs.append((field_name, kind, ()))
        elif info.default_factory is not None:
            specs.append((field_name, kind, msgspec.field(default_factory=info.default_factory)))  # type: ignore[arg-type]
        else:
            specs.append((field_name, kind, info.default))
    return msgspec.defstruct(name or model.__name__, specs, kw_only=True, module=__name__, **options)


def _converted(kind: Any, views: dict[type[BaseModel], type[msgspec.Struct]], unset: bool, bounds: bool,
               options: dict[str, Any]) -> Any:
    """``kind`` with every nested record replaced by its struct."""
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        if kind not in views:
            views[kind] = record_struct(kind, views=views, unset=unset, bounds=bounds, **options)
        return views[kind]
    origin, args = get_origin(kind), get_args(kind)
    if origin is None or not args:
        return kind
    if origin is Annotated:
        inner = _converted(args[0], views, unset, bounds, options)
        return _constrained(inner, kind.__metadata__, None, repr(kind)) if bounds else inner
    converted = tuple(_converted(arg, views, unset, bounds, options) for arg in args)
    if origin is Union or origin is types.UnionType:
        return Union[converted]  # noqa: UP007
    if origin is list and options.get("frozen"):
        return types.GenericAlias(tuple, (converted[0], ...))
    return origin[converted if len(converted) > 1 else converted[0]]


def _constrained(kind: Any, metadata: Iterable[Any], model: type[BaseModel] | None, where: str) -> Any:
    """``kind`` annotated with msgspec's form of the pydantic bounds in ``metadata``."""
    bounds: dict[str, Any] = {}
    for item in _flat(metadata):
        key = _BOUNDS.get(type(item))
        if key is not None:
            bounds[key] = getattr(item, key)
        elif _only_pattern(item):
            bounds["pattern"] = item.pattern
        else:
            place = f"{model.__name__}.{where}" if model else where
            raise TypeError(f"{place}: the constraint {item!r} is not carried over")
    return Annotated[kind, msgspec.Meta(**bounds)] if bounds else kind


def _flat(metadata: Iterable[Any]) -> Iterable[Any]:
    for item in metadata:
        if isinstance(item, annotated_types.GroupedMetadata):
            yield from _flat(item)
        else:
            yield item


def _only_pattern(item: Any) -> bool:
    """Whether ``item`` is pydantic's general metadata setting nothing but a pattern (what ``pattern=`` leaves)."""
    values = {key: value for key, value in getattr(item, "__dict__", {}).items() if value is not None}
    return set(values) == {"pattern"} and isinstance(values["pattern"], str)
