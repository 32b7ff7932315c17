"""Cases as columns: every expectation reduced to a shared shape and its gold.

The cases of a suite mostly repeat the same checks with other gold. An expectation's fields other than
its gold (its shape) are validated once per distinct spelling, and the rules and the scorer work once
per shape; a case keeps its id, its input, the layout of its expectations (shared) and its golds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import PrivateAttr, ValidationError

from tracegrade.suites.reading._json import canonical
from tracegrade.suites.reading._models import MAX_CASE_ID_CHARS, MAX_EXPECTATIONS, Expectation

__all__ = ["SHAPE_FIELDS", "CaseColumns", "Layout", "Shape", "ShapeReader", "case_columns"]


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

    def __len__(self) -> int:
        return len(self.ids)

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

    def case_json(self, number: int) -> dict[str, Any]:
        """Case ``number`` as JSON: what dumping its model gives."""
        return {"id": self.ids[number], "input": self.inputs[number],
                "expectations": self.expectations_json(number)}

    def expectations_canonical(self, number: int) -> bytes:
        """``canonical(self.expectations_json(number))``, from its layout's bytes and each canonical gold."""
        return self.layouts[number].canonical(self.golds[number])


_MISSING = object()
_METADATA = frozenset({dict, type(None)})
Key = tuple[Any, ...]
"""How one expectation spells its shape: its size, whether it has gold, each other field and their types."""


class ShapeReader:
    """Shapes and layouts met so far while reading one suite's cases."""

    def __init__(self) -> None:
        self.spellings: dict[Key, Shape | None] = {}
        """By spelling: its shape, or None when an expectation spelt so is invalid."""
        self.shapes: dict[tuple[Any, ...], Shape] = {}
        self.layouts: dict[tuple[Shape, ...], Layout] = {}

    def layout(self, expectations: list[Any]) -> Layout | None:
        """The layout of these expectations; None when one of them may be invalid."""
        try:
            keys = [(len(e), "expected" in e, *(spelt := [e.get(name, _MISSING) for name in SHAPE_FIELDS]),
                     *map(type, spelt)) for e in expectations]  # typed: 1 == True
            spellings = self.spellings
            shapes = tuple([spellings[k] if k in spellings else self._shape(k, e)
                            for k, e in zip(keys, expectations, strict=True)])
        except (AttributeError, TypeError):  # not an object, or a field that no valid expectation has
            return None
        if None in shapes:
            return None
        return self.shared(shapes)  # type: ignore[arg-type]

    def shared(self, shapes: tuple[Shape, ...]) -> Layout:
        """The one layout of these shapes."""
        found = self.layouts.get(shapes)
        if found is None:
            found = self.layouts[shapes] = Layout(shapes)
        return found

    def _shape(self, key: Key, expectation: dict[str, Any]) -> Shape | None:
        return self.shape(key, expectation) if "expected" in expectation else self._remember(key, None)

    def shape(self, key: Key, fields: dict[str, Any]) -> Shape | None:
        """The shape of the first expectation spelt ``key``, validated from its ``fields``; None when invalid.

        Any gold is valid, so the gold is left out.
        """
        try:
            made = Shape.model_validate({**fields, "expected": None})
        except ValidationError:
            return self._remember(key, None)
        found = tuple(made.__dict__.values())
        shape = self.shapes.get(found)
        if shape is None:
            shape = self.shapes[found] = made
        return self._remember(key, shape)

    def _remember(self, key: Key, shape: Shape | None) -> Shape | None:
        self.spellings[key] = shape
        return shape


def case_columns(raw: Sequence[Any]) -> CaseColumns | None:
    """The cases ``raw`` as columns when every one is surely valid; None when one may not be.

    Validating the cases as models then names the problem; every case this accepts validates as a
    :class:`~tracegrade.suites.reading._models.Case`, and its JSON is what dumping the model gives.
    """
    reader = ShapeReader()
    ids: list[str] = []
    inputs: list[dict[str, Any]] = []
    layouts: list[Layout] = []
    golds: list[tuple[Any, ...]] = []
    for item in raw:
        if type(item) is not dict or len(item) != 3:
            return None
        case_id, given, expectations = item.get("id"), item.get("input"), item.get("expectations")
        if type(case_id) is not str or not 0 < len(case_id) <= MAX_CASE_ID_CHARS:
            return None
        if type(given) is not dict or "payload" not in given or len(given) - ("metadata" in given) != 1 \
                or type(given.get("metadata")) not in _METADATA:
            return None
        if type(expectations) is not list or not 0 < len(expectations) <= MAX_EXPECTATIONS:
            return None
        layout = reader.layout(expectations)
        if layout is None:
            return None
        ids.append(case_id)
        inputs.append({"payload": given["payload"], "metadata": given.get("metadata")})
        layouts.append(layout)
        golds.append(tuple([e["expected"] for e in expectations]))
    return CaseColumns(tuple(ids), tuple(inputs), tuple(layouts), tuple(golds))
