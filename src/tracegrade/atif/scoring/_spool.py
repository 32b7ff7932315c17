"""Finished roots' result records kept in a temporary file instead of memory, read back in root order."""

from __future__ import annotations

import os
import tempfile
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any, overload

import orjson

from tracegrade.atif.scoring._records import NodeResult, StepResult

__all__ = ["NodeSpool", "SpooledNodes", "brief_nodes"]


class NodeSpool:
    """Where a job puts each root's records as the root finishes, in any order.

    The records go to an unnamed temporary file (in ``directory``, else the system's temporary folder;
    nothing is left behind when the process ends, however it ends); memory keeps a brief copy of each
    node (:func:`brief_nodes`: no step content, no criteria) for the summary, the step table and the
    report's aggregates.
    """

    def __init__(self, directory: Path | None = None) -> None:
        self._file = _File(directory)
        self._size = 0
        self._blocks: dict[int, tuple[int, int, int]] = {}
        """Root index → offset, length and node count of its records in the file."""
        self._brief: dict[int, list[NodeResult]] = {}

    def add(self, index: int, nodes: Sequence[NodeResult]) -> None:
        """Keep the records of the root at ``index`` (its nodes in tree order)."""
        data = orjson.dumps([node.model_dump(mode="json") for node in nodes])
        self._file.handle.write(data)
        self._blocks[index] = (self._size, len(data), len(nodes))
        self._size += len(data)
        self._brief[index] = [_brief(node) for node in nodes]

    def nodes(self) -> SpooledNodes:
        """Every record kept so far, roots in index order (the spool may not be added to afterwards)."""
        self._file.handle.flush()
        order = sorted(self._blocks)
        brief = [node for index in order for node in self._brief[index]]
        return SpooledNodes(self._file, [self._blocks[index] for index in order], brief)


class SpooledNodes(Sequence[NodeResult]):
    """Result records read back from a :class:`NodeSpool`'s file each time they are walked.

    Only one root's records are in memory at a time while iterating; :attr:`brief` holds every node
    without its step content and criteria.
    """

    def __init__(self, file: _File, blocks: list[tuple[int, int, int]], brief: list[NodeResult]) -> None:
        self._file = file  # kept open (and the unnamed file alive) for as long as the records are used
        self._blocks = blocks
        self._starts = [0, *accumulate(count for _, _, count in blocks)]
        self.brief = brief
        """Every node, in order, without step content and criteria (what summaries and step tables read)."""

    def raw(self) -> Iterator[list[dict[str, Any]]]:
        """Each root's records as the JSON values ``model_dump(mode="json")`` gave, root by root."""
        fd = self._file.handle.fileno()
        for offset, length, _ in self._blocks:
            values: list[dict[str, Any]] = orjson.loads(os.pread(fd, length, offset))
            yield values

    def __iter__(self) -> Iterator[NodeResult]:
        for values in self.raw():
            for value in values:
                yield NodeResult.model_validate(value)

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
        block = bisect_right(self._starts, position) - 1
        offset, length, _ = self._blocks[block]
        values = orjson.loads(os.pread(self._file.handle.fileno(), length, offset))
        return NodeResult.model_validate(values[position - self._starts[block]])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __add__(self, other: Sequence[NodeResult]) -> list[NodeResult]:
        return [*self, *other]

    def __radd__(self, other: Sequence[NodeResult]) -> list[NodeResult]:
        return [*other, *self]

    __hash__ = None  # type: ignore[assignment]  # compared by value, like the list it stands for

    def __repr__(self) -> str:
        return f"SpooledNodes({len(self)} nodes)"


class _File:
    """The unnamed file, closed when the last of its spool and its records is gone."""

    def __init__(self, directory: Path | None) -> None:
        self.handle = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115  # open as long as the records are read

    def __del__(self) -> None:
        self.handle.close()


def brief_nodes(nodes: Sequence[NodeResult]) -> Sequence[NodeResult]:
    """The nodes a summary or step table reads: :attr:`SpooledNodes.brief` for spooled ones, else ``nodes``."""
    return nodes.brief if isinstance(nodes, SpooledNodes) else nodes


def _brief(node: NodeResult) -> NodeResult:
    """``node`` without what only reviewers read: its criteria and its steps' content and categorisation rationale."""
    steps = [_brief_step(step) for step in node.steps]
    return node.model_copy(update={"criteria": None, "steps": steps})


def _brief_step(step: StepResult) -> StepResult:
    return step.model_copy(update={"content": None, "categorization_rationale": None})
