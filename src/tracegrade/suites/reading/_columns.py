"""Cases as columns: every expectation reduced to a shared shape and its gold.

The cases of a suite mostly repeat the same checks with other gold. An expectation's fields other than
its gold (its shape) are validated once per distinct spelling, and the rules and the scorer work once
per shape; a case keeps its id, its input, the layout of its expectations (shared) and its golds.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import orjson
from pydantic import PrivateAttr, ValidationError

from tracegrade._io import record_struct
from tracegrade.suites.reading._json import canonical
from tracegrade.suites.reading._models import Case, Expectation

__all__ = ["CASE_RECORDS", "SHAPE_FIELDS", "CaseColumns", "Layout", "Shape", "ShapeReader", "case_columns",
           "record_columns"]


SHAPE_FIELDS = tuple(name for name in Expectation.model_fields if name != "expected")
"""An expectation's fields but its gold, in the model's order."""

_GOLD = b'"expected":null'


class Shape(Expectation):
    """An expectation but its gold (``expected`` is None): what the cases that repeat a check share.

    Equal only to itself: a :class:`ShapeReader` makes one per distinct expectation.
    """

    _head: bytes = PrivateAttr(b"")
    _tail: bytes = PrivateAttr(b"")
    _fields: dict[str, Any] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        """Keep the expectation as JSON and its canonical bytes before and after the gold."""
        fields = self.model_dump()
        whole = canonical(fields)  # keys sorted; no key but ``expected`` can spell ``"expected":`` unescaped
        cut = whole.index(_GOLD) + len(_GOLD) - len(b"null")
        self._head, self._tail, self._fields = whole[:cut], whole[cut + len(b"null"):], fields

    @property
    def head(self) -> bytes:
        """Canonical JSON of an expectation of this shape before its gold."""
        return self._head

    @property
    def tail(self) -> bytes:
        """Canonical JSON of an expectation of this shape after its gold."""
        return self._tail

    def spelled_out(self, gold: Any) -> dict[str, Any]:
        """The expectation of this shape with ``gold`` as JSON, every field in model order."""
        return {**self._fields, "expected": gold}

    __eq__ = object.__eq__
    __hash__ = object.__hash__


@dataclass(frozen=True, slots=True, eq=False)
class Layout:
    """The shapes of one case's expectations in order; the cases with the same checks share one."""

    shapes: tuple[Shape, ...]
    template: bytes = field(init=False, repr=False)
    """The canonical JSON of the expectations with ``%s`` for each canonical gold."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "template", b"[%s]" % b",".join(
            shape.head.replace(b"%", b"%%") + b"%s" + shape.tail.replace(b"%", b"%%") for shape in self.shapes))

    def canonical(self, golds: tuple[Any, ...]) -> bytes:
        """The canonical JSON of the expectations of this layout with ``golds``."""
        dumps, sort = orjson.dumps, orjson.OPT_SORT_KEYS  # canonical() without a call per gold
        return self.template % tuple([dumps(gold, option=sort) for gold in golds])


@dataclass(frozen=True, slots=True)
class CaseColumns:
    """A suite's valid cases, column by column (row ``n`` is case ``n``)."""

    ids: tuple[str, ...]
    inputs: tuple[dict[str, Any], ...]
    """Each case's input as JSON, ``metadata`` spelled out."""
    layouts: tuple[Layout, ...]
    golds: tuple[tuple[Any, ...], ...]
    """Each case's gold values, in the order of its layout."""

    def expectation_count(self) -> int:
        """How many expectations the cases have in all."""
        return sum(len(layout.shapes) for layout in self.layouts)

    def comparisons(self) -> frozenset[str]:
        """Every comparison the cases' expectations name."""
        return frozenset(shape.comparison for layout in set(self.layouts) for shape in layout.shapes)

    def expectations_json(self, number: int) -> list[dict[str, Any]]:
        """Case ``number``'s expectations as JSON, every field spelled out."""
        return [shape.spelled_out(gold)
                for shape, gold in zip(self.layouts[number].shapes, self.golds[number], strict=True)]

    def expectations_canonical(self, number: int) -> bytes:
        """``canonical(self.expectations_json(number))``, from its layout's bytes and each canonical gold."""
        return self.layouts[number].canonical(self.golds[number])


_READ: dict[str, Any] = {"forbid_unknown_fields": True, "gc": False}
CASE_RECORDS: Any = list[record_struct(Case, unset=True, views={  # type: ignore[misc]
    Expectation: record_struct(Expectation, unset=True, bounds=False, **_READ)}, **_READ)]
"""Cases as msgspec records made from the :class:`~tracegrade.suites.reading._models.Case` model (its fields,
types and bounds; a field left out is ``msgspec.UNSET``). An expectation's bounds are left to the model, which
validates each distinct spelling once (:class:`ShapeReader`)."""

Spelling = tuple[Any, ...]
"""An expectation's fields but its gold, as written (unset fields: ``msgspec.UNSET``)."""
_spelling = operator.attrgetter(*SHAPE_FIELDS)
_UNSET = msgspec.UNSET


class ShapeReader:
    """Shapes and layouts met so far while reading one suite's cases."""

    def __init__(self) -> None:
        self.spellings: dict[Spelling, Shape | None] = {}
        """By spelling: its shape, or None when an expectation spelt so is invalid."""
        self.shapes: dict[tuple[Any, ...], Shape] = {}
        self.layouts: dict[tuple[Shape, ...], Layout] = {}

    def shared(self, shapes: tuple[Shape, ...]) -> Layout:
        """The one layout of these shapes."""
        found = self.layouts.get(shapes)
        if found is None:
            found = self.layouts[shapes] = Layout(shapes)
        return found

    def shape(self, spelling: Spelling) -> Shape | None:
        """The shape of the first expectation spelt so, validated by the model; None when invalid.

        Any gold is valid, so the gold is left out.
        """
        found = self.spellings.get(spelling, _UNSET)
        if found is not _UNSET:
            return found
        fields = {name: value for name, value in zip(SHAPE_FIELDS, spelling, strict=True) if value is not _UNSET}
        shape: Shape | None
        try:
            made = Shape.model_validate({**fields, "expected": None})
        except ValidationError:
            shape = None
        else:
            shape = self.shapes.setdefault(tuple(made.__dict__.values()), made)
        self.spellings[spelling] = shape
        return shape


def case_columns(raw: Sequence[Any]) -> CaseColumns | None:
    """The cases ``raw`` (as JSON) as columns when every one is surely valid; None when one may not be.

    Validating the cases as models then names the problem; every case this accepts validates as a
    :class:`~tracegrade.suites.reading._models.Case`, and its JSON is what dumping the model gives.
    """
    try:
        records = msgspec.convert(raw, CASE_RECORDS)
    except msgspec.ValidationError:
        return None
    return record_columns(records)


def record_columns(cases: list[Any]) -> CaseColumns | None:
    """The columns of cases as :data:`CASE_RECORDS`; None when an expectation is invalid."""
    reader = ShapeReader()
    layouts: dict[tuple[Spelling, ...], Layout | None] = {}
    ids, inputs, case_layouts, golds = [], [], [], []
    for case in cases:
        expectations = case.expectations
        key = tuple(map(_spelling, expectations))
        layout = layouts[key] if key in layouts else _layout(key, reader, layouts)
        if layout is None:
            return None
        ids.append(case.id)
        metadata = case.input.metadata
        inputs.append({"payload": case.input.payload, "metadata": None if metadata is _UNSET else metadata})
        case_layouts.append(layout)
        golds.append(tuple([e.expected for e in expectations]))
    return CaseColumns(tuple(ids), tuple(inputs), tuple(case_layouts), tuple(golds))


def _layout(key: tuple[Spelling, ...], reader: ShapeReader,
            layouts: dict[tuple[Spelling, ...], Layout | None]) -> Layout | None:
    """The layout of the first case whose expectations are spelt ``key``; None when one of them is invalid."""
    found: list[Shape] = []
    for spelling in key:
        shape = reader.shape(spelling)
        if shape is None:
            layouts[key] = None
            return None
        found.append(shape)
    layout = layouts[key] = reader.shared(tuple(found))
    return layout
