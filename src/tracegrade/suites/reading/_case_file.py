"""A case file decoded straight into columns when it is surely valid strict JSON of valid cases.

msgspec decodes the file into typed records (no dict per case or expectation) under the strict reader's
screens (:func:`tracegrade._io.decode_typed`); anything in doubt returns None, and the file is then read
as a document and its cases validated as before, so every problem keeps its message and place.

The records are made from the pydantic :class:`~tracegrade.suites.reading._models.Case` by
:func:`tracegrade._io.record_struct` (its fields, types and bounds; a field left out is ``msgspec.UNSET``), so
the case is declared once. An expectation's fields but its gold spell its shape; their bounds are left to the
model, which validates each distinct spelling once (:class:`~tracegrade.suites.reading._columns.ShapeReader`).
"""

from __future__ import annotations

import operator
from typing import Any

import msgspec
import orjson

from tracegrade._io import decode_typed, record_struct
from tracegrade.suites.reading._columns import SHAPE_FIELDS, CaseColumns, Layout, Shape, ShapeReader
from tracegrade.suites.reading._models import Case, Expectation

__all__ = ["case_file_columns"]

_UNSET = msgspec.UNSET
_READ: dict[str, Any] = {"forbid_unknown_fields": True, "gc": False}
_CASES: Any = list[record_struct(Case, unset=True, views={  # type: ignore[misc]
    Expectation: record_struct(Expectation, unset=True, bounds=False, **_READ)}, **_READ)]
_spelling = operator.attrgetter(*SHAPE_FIELDS)

Spelling = tuple[Any, ...]
"""An expectation's fields but its gold, as written (unset fields: ``msgspec.UNSET``)."""


def case_file_columns(data: bytes) -> tuple[CaseColumns, list[Any]] | None:
    """The cases of a case file's bytes as columns, and as the records decoded; None unless surely valid.

    What this accepts, :func:`tracegrade._io.loads` decodes to the same values
    and :func:`~tracegrade.suites.reading._columns.case_columns` reads as the same columns. The records
    (``msgspec.to_builtins`` gives the cases as JSON) are meant to be kept as long as the columns: the
    columns hold parts of them, and records freed among the parts kept leave holes that later work
    fills at scattered places.
    """
    cases: list[Any] | None = decode_typed(data, _CASES)
    if not cases or not _shallow(cases):
        return None
    columns = _columns(cases)
    return None if columns is None else (columns, cases)


def _shallow(cases: list[Any]) -> bool:
    """Whether every value nests as orjson writes it back (strict reading refuses 255 levels or more).

    Each input and gold is dumped at the depth it has in the file: the case array, a case, its input
    (then the payload or metadata); or the case array, a case, its expectations, one expectation.
    """
    containers = (dict, list)
    inputs = [value for case in cases for value in (case.input.payload, case.input.metadata)
              if type(value) in containers]
    golds = [e.expected for case in cases for e in case.expectations if type(e.expected) in containers]
    try:
        orjson.dumps([[inputs]])
        orjson.dumps([[[golds]]])
    except orjson.JSONEncodeError:
        return False
    return True


def _columns(cases: list[Any]) -> CaseColumns | None:
    """The columns of decoded cases (their id and expectation counts already bounded by the records)."""
    reader = ShapeReader()  # shapes and layouts shared as :func:`~tracegrade.suites.reading._columns.case_columns` does
    layouts: dict[tuple[Spelling, ...], Layout | None] = {}
    ids, inputs, case_layouts, golds = [], [], [], []
    for case in cases:
        case_id, expectations = case.id, case.expectations
        key = tuple(map(_spelling, expectations))
        layout = layouts[key] if key in layouts else _layout(key, reader, layouts)
        if layout is None:
            return None
        ids.append(case_id)
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
        shape = reader.spellings[spelling] if spelling in reader.spellings else reader.shape(
            spelling, {name: value for name, value in zip(SHAPE_FIELDS, spelling, strict=True) if value is not _UNSET})
        if shape is None:
            layouts[key] = None
            return None
        found.append(shape)
    layout = layouts[key] = reader.shared(tuple(found))
    return layout
