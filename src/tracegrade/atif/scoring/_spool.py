"""Finished roots' result records kept in a temporary file instead of memory, read back in root order.

Each root's records are kept as ``evaluation_results.json`` holds them, beside its brief records (no step
content, no criteria). :class:`NodeRecords`, the type of ``EvaluationResults.nodes``, reads the same whether
the records are spooled (:class:`SpooledNodes`) or held (:class:`ListedNodes`).
"""

from __future__ import annotations

import os
import tempfile
from abc import ABC, abstractmethod
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any, overload

import orjson
from pydantic import GetCoreSchemaHandler, TypeAdapter, ValidatorFunctionWrapHandler
from pydantic_core import CoreSchema, core_schema

from tracegrade._io import loads_written
from tracegrade.atif.scoring._records import NodeResult
from tracegrade.errors import OutputError
from tracegrade.runs import JSON_OPTIONS

__all__ = ["BriefNodes", "ListedNodes", "NodeRecords", "NodeSpool", "SpooledNodes", "listed_items"]

_INDENT = b"    "
"""A node record's indent in ``evaluation_results.json`` (inside the top-level ``nodes`` list)."""

_ROOT_RECORDS: TypeAdapter[list[NodeResult]] = TypeAdapter(list[NodeResult])


class _ByValue(Sequence[NodeResult]):
    """Node records compared by value, like the list they stand for."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]


class NodeRecords(_ByValue, ABC):
    """Every node's record of a run, roots in order: the type of ``EvaluationResults.nodes``.

    :attr:`brief` is the same nodes without what only reviewers read (step content, criteria), and
    :meth:`texts` the records as ``evaluation_results.json`` holds them.
    """

    @property
    @abstractmethod
    def brief(self) -> Sequence[NodeResult]:
        """Every node, in order, without step content and criteria (what summaries and step tables read)."""

    def texts(self) -> Iterator[bytes]:
        """The records as pieces of ``evaluation_results.json``'s ``nodes`` list (:func:`listed_items`)."""
        if len(self):
            yield listed_items(node.model_dump(mode="json") for node in self)

    def __add__(self, other: Sequence[NodeResult]) -> list[NodeResult]:
        return [*self, *other]

    def __radd__(self, other: Sequence[NodeResult]) -> list[NodeResult]:
        return [*other, *self]

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Validated as a list of records (the JSON Schema says so); node records are kept as they are."""
        return core_schema.no_info_wrap_validator_function(_records_of, handler.generate_schema(list[NodeResult]))


def _records_of(value: Any, validate: ValidatorFunctionWrapHandler) -> NodeRecords:
    return value if isinstance(value, NodeRecords) else ListedNodes(validate(value))


class ListedNodes(NodeRecords):
    """Node records held in memory (results read from a file, merged shards, tests)."""

    def __init__(self, nodes: Iterable[NodeResult] = ()) -> None:
        self._nodes = list(nodes)

    @property
    def brief(self) -> Sequence[NodeResult]:
        """The records themselves (a reader of brief records reads no more than it needs)."""
        return self._nodes

    def __iter__(self) -> Iterator[NodeResult]:
        return iter(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)

    @overload
    def __getitem__(self, index: int) -> NodeResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[NodeResult]: ...

    def __getitem__(self, index: int | slice) -> NodeResult | list[NodeResult]:
        return self._nodes[index]

    def __repr__(self) -> str:
        return f"ListedNodes({self._nodes!r})"


@dataclass(frozen=True, slots=True)
class _Block:
    """Where one root's pieces are in the spool file: records, then brief records."""

    offset: int
    length: int
    """Bytes of the records' text: each node indented, separated by a comma and a new line."""
    count: int
    brief: int
    """Bytes of the brief records (one compact JSON array), right after the records."""

    @property
    def brief_offset(self) -> int:
        return self.offset + self.length


class _Blocks:
    """Blocks kept as columns of machine integers, read as :class:`_Block`."""

    def __init__(self) -> None:
        self.roots, self.offsets, self.lengths, self.counts, self.briefs = (array("q") for _ in range(5))

    def append(self, root: int, block: _Block) -> None:
        """Add the block of the root at index ``root``."""
        self.roots.append(root)
        self.offsets.append(block.offset)
        self.lengths.append(block.length)
        self.counts.append(block.count)
        self.briefs.append(block.brief)

    def in_order(self) -> _Blocks:
        """The blocks sorted by root index."""
        ordered = _Blocks()
        for number in sorted(range(len(self)), key=self.roots.__getitem__):
            ordered.append(self.roots[number], self[number])
        return ordered

    def __len__(self) -> int:
        return len(self.roots)

    def __getitem__(self, number: int) -> _Block:
        return _Block(self.offsets[number], self.lengths[number], self.counts[number], self.briefs[number])

    def __iter__(self) -> Iterator[_Block]:
        return map(self.__getitem__, range(len(self)))


class NodeSpool:
    """Where a job puts each root's records as the root finishes, in any order.

    The records, with a brief copy of each node, go to an unnamed temporary file in ``directory`` (else the
    system's temporary folder), which leaves nothing behind when the process ends.
    """

    def __init__(self, directory: Path | None = None) -> None:
        self._file = _File(directory)
        self._size = 0
        self._blocks = _Blocks()
        """Where each root's records are, roots in the order they finished."""

    def add(self, index: int, nodes: Sequence[NodeResult]) -> None:
        """Keep the records of the root at ``index`` (its nodes in tree order)."""
        values = [node.model_dump(mode="json") for node in nodes]
        records = listed_items(values)
        brief = orjson.dumps([_brief(value) for value in values])
        data = records + brief
        try:
            self._file.handle.write(data)
        except OSError as exc:
            raise self._file.unwritable(exc) from None
        self._blocks.append(index, _Block(self._size, len(records), len(nodes), len(brief)))
        self._size += len(data)

    def nodes(self) -> SpooledNodes:
        """Every record kept so far, roots in index order (the spool may not be added to afterwards).

        Raises:
            OutputError: the records could not be kept (a full disk), one line naming the folder.
        """
        try:
            self._file.handle.flush()
        except OSError as exc:
            raise self._file.unwritable(exc) from None
        return SpooledNodes(self._file, self._blocks.in_order())


class _RootBlocks(_ByValue):
    """Node records read back from the spool file root by root; an index reads one root's block."""

    def __init__(self, file: _File, blocks: _Blocks, starts: array[int]) -> None:
        self._file = file  # kept open (and the unnamed file alive) for as long as the records are used
        self._blocks = blocks
        self._starts = starts

    @abstractmethod
    def _node(self, block: _Block, place: int) -> NodeResult:
        """The record at ``place`` in ``block``."""

    def _read(self, offset: int, length: int) -> bytes:
        return os.pread(self._file.handle.fileno(), length, offset)

    def __len__(self) -> int:
        return self._starts[-1]

    @overload
    def __getitem__(self, index: int) -> NodeResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[NodeResult]: ...

    def __getitem__(self, index: int | slice) -> NodeResult | list[NodeResult]:
        if isinstance(index, slice):
            return list(self)[index]
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError("node index out of range")
        number = bisect_right(self._starts, position) - 1
        return self._node(self._blocks[number], position - self._starts[number])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} nodes)"


class SpooledNodes(_RootBlocks, NodeRecords):
    """Result records read back from a :class:`NodeSpool`'s file each time they are walked."""

    def __init__(self, file: _File, blocks: _Blocks) -> None:
        super().__init__(file, blocks, array("q", [0, *accumulate(blocks.counts)]))
        self._brief = BriefNodes(file, blocks, self._starts)

    @property
    def brief(self) -> BriefNodes:
        """Every node, in order, without step content and criteria, read back root by root."""
        return self._brief

    def texts(self) -> Iterator[bytes]:
        """Each root's records as ``evaluation_results.json`` holds them.

        Every node is indented four spaces, with a comma and a new line between nodes (none before the first
        or after the last).
        """
        for block in self._blocks:
            yield self._read(block.offset, block.length)

    def raw(self) -> Iterator[list[dict[str, Any]]]:
        """Each root's records as the JSON values ``model_dump(mode="json")`` gave, root by root."""
        for text in self.texts():
            values: list[dict[str, Any]] = loads_written(b"[" + text + b"]")
            yield values

    def __iter__(self) -> Iterator[NodeResult]:
        for values in self.raw():
            for value in values:
                yield NodeResult.model_validate(value)

    def _node(self, block: _Block, place: int) -> NodeResult:
        return NodeResult.model_validate(loads_written(b"[" + self._read(block.offset, block.length) + b"]")[place])


class BriefNodes(_RootBlocks):
    """Every spooled node without its criteria, step content and categorisation rationale, read back root by root."""

    def roots(self) -> Iterator[list[NodeResult]]:
        """Each root's brief records (its nodes in tree order), root by root."""
        for block in self._blocks:
            yield _ROOT_RECORDS.validate_json(self._read(block.brief_offset, block.brief))

    def __iter__(self) -> Iterator[NodeResult]:
        for nodes in self.roots():
            yield from nodes

    def _node(self, block: _Block, place: int) -> NodeResult:
        return _ROOT_RECORDS.validate_json(self._read(block.brief_offset, block.brief))[place]


class _File:
    """The unnamed file, closed when the last of its spool and its records is gone."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory or Path(tempfile.gettempdir())
        try:
            self.handle = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115  # open while the records are read
        except OSError as exc:
            raise self.unwritable(exc) from None

    def unwritable(self, exc: OSError) -> OutputError:
        """The one-line error of a spool that cannot be written."""
        return OutputError(f"{self.directory}: cannot keep the finished results while scoring "
                           f"({exc.strerror or exc}; is the disk full?)")

    def __del__(self) -> None:
        handle = getattr(self, "handle", None)
        if handle is not None:
            handle.close()


def listed_items(values: Iterable[Any]) -> bytes:
    """JSON values as items of a top-level list of ``evaluation_results.json``.

    Each is indented as it is there, with a comma and a new line between them.
    """
    return b",\n".join(
        _INDENT + orjson.dumps(value, option=JSON_OPTIONS).replace(b"\n", b"\n" + _INDENT) for value in values
    )


def _brief(value: dict[str, Any]) -> dict[str, Any]:
    """A node record's JSON value without what only reviewers read: criteria, step content, categorisation rationale."""
    steps = [{**step, "content": None, "categorization_rationale": None} for step in value["steps"]]
    return {**value, "criteria": None, "steps": steps}
