"""A collection handed to a job root by root: its outline first, each root's full tree when its turn comes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path

from tracegrade.atif.reading._document import Document, read_documents
from tracegrade.atif.reading._load import Outline, read_outline, read_tree
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.atif.reading._records import LoadResult, NodeStatus, TrajectoryNode, iter_nodes
from tracegrade.atif.reading._task import resolve_task
from tracegrade.errors import InputError

__all__ = ["Collection", "read_collection"]


@dataclass(frozen=True, slots=True)
class Collection:
    """Trajectory trees to score: the outline of every root, and their full trees one at a time.

    Read from files (:func:`read_collection`), a full tree is read again when asked for and is not kept;
    made from a ``LoadResult`` (:meth:`of`), the trees are the ones already loaded.
    """

    outline: LoadResult
    """Every root (outline trees, without steps or models, when read from files) and the account of every input."""
    options: LoadOptions
    files: Outline | None = None
    """Where each root's document is; None when the trees are already in memory."""

    @classmethod
    def of(cls, loaded: LoadResult) -> Collection:
        """The collection of trees already loaded."""
        return cls(loaded, LoadOptions())

    def trees(self, roots: Sequence[TrajectoryNode]) -> Iterator[TrajectoryNode]:
        """The full trees of ``roots`` (roots of the outline, in its order), one at a time.

        Raises:
            InputError: a root's document is no longer valid (the file changed since the outline was read).
        """
        if self.files is None:
            yield from roots
            return
        sources = self.files.sources
        for path, group in groupby(roots, key=lambda root: sources[root.node_id].path):
            documents = read_documents(Path(path), self.options)
            for root in group:
                source = sources[root.node_id]
                document = next((d for d in documents if d.location == source.location), None)
                if not isinstance(document, Document):
                    where = f"{path}:{source.location}" if source.location else str(path)
                    raise InputError(f"{where}: changed while the job ran; run it again", code="input_changed")
                yield read_tree(source, document, self.options, self.files.base)

    def without_task(self, roots: Sequence[TrajectoryNode]) -> list[TrajectoryNode]:
        """The loaded ``roots`` with no task (no ``extra.task_instruction``, no user step with text), in order."""
        loaded = [root for root in roots if root.status is NodeStatus.LOADED]
        if self.files is None:
            return [root for root in loaded if resolve_task(root) is None]
        return [root for root in loaded if not self.files.sources[root.node_id].has_task]

    def steps(self, root: TrajectoryNode) -> int:
        """Steps of ``root``'s tree within the depth limit (the steps a job scores)."""
        if self.files is None:
            return sum(len(n.steps) for n in iter_nodes(root) if n.status is NodeStatus.LOADED)
        return self.files.sources[root.node_id].steps


def read_collection(paths: Sequence[str | Path], options: LoadOptions | None = None) -> Collection:
    """Read the outline of files, directories (recursive) or several paths, keeping no steps.

    Every input is read and validated once, as :func:`load_trajectories` does (with the same errors,
    limits and accounts), keeping only what tree building reads; :meth:`Collection.trees` reads each
    root's documents again.

    Raises:
        InputError: as :func:`load_trajectories`.
        LimitExceededError: as :func:`load_trajectories`.
    """
    options = options or LoadOptions()
    files = read_outline(paths, options)
    return Collection(files.result, options, files)
