"""One reviewer's place in the queue: which step comes next, what was skipped, what an undo goes back to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tracegrade.atif.agreement._agree import match_labels
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.reviewing._queue import QueuedStep
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import InputError

__all__ = ["Key", "ReviewSession", "answered_steps"]

Key = tuple[str, int]
"""A step of the run: node id and logical step index."""


def answered_steps(results: EvaluationResults, labels: Sequence[Label]) -> dict[Key, Label]:
    """The standing step labels of one reviewer by the step they name.

    When a hand-written file names a step twice, the later label is kept.
    """
    try:
        matches, _ = match_labels(results, labels)
    except InputError:  # a step named twice: the figures say so; here each label is matched on its own
        matches = [m for label in labels for m in match_labels(results, [label])[0]]
    return {(m.node.node_id, m.step.index): m.label for m in matches if m.step is not None}


@dataclass
class ReviewSession:
    """The queue of one reviewer and what they did in this server's lifetime (skips are not written down)."""

    queue: tuple[QueuedStep, ...]
    skipped: list[Key] = field(default_factory=list)
    """Steps skipped, in order; they come back once every other step is answered."""
    focus: Key | None = None
    """The step an undo went back to: shown next while it is unanswered."""
    draft: dict[str, Any] | None = None
    """The answer an undo withdrew, to fill the form again."""
    last_skip: list[Key] = field(default_factory=list)
    """Skips an undo takes back first, most recent last (cleared by an answer)."""

    def __post_init__(self) -> None:
        self.positions = {step.key: number for number, step in enumerate(self.queue, start=1)}

    def current(self, answered: dict[Key, Label]) -> QueuedStep | None:
        """The next step to show: the focus, else the first unanswered unskipped one, else a skipped one."""
        by_key = {step.key: step for step in self.queue}
        if self.focus in by_key and self.focus not in answered:
            return by_key[self.focus]
        for step in self.queue:
            if step.key not in answered and step.key not in self.skipped:
                return step
        for key in self.skipped:
            if key not in answered:
                return by_key[key]
        return None

    def skip(self, key: Key) -> None:
        """Put ``key`` at the back of the queue."""
        if key in self.skipped:
            self.skipped.remove(key)
        self.skipped.append(key)
        self.last_skip.append(key)
        self.focus, self.draft = None, None

    def answered_one(self) -> None:
        """An answer was written: undo now takes it back, not an earlier skip."""
        self.last_skip.clear()
        self.focus, self.draft = None, None

    def unskip(self) -> Key | None:
        """Take back the latest skip of this session (None when there is none to take back)."""
        if not self.last_skip:
            return None
        key = self.last_skip.pop()
        if key in self.skipped:
            self.skipped.remove(key)
        self.focus, self.draft = key, None
        return key

    def returned_to(self, key: Key | None, draft: dict[str, Any] | None) -> None:
        """An answer was withdrawn: show its step next, with the withdrawn answer in the form."""
        self.focus, self.draft = key, draft
        if key in self.skipped:
            self.skipped.remove(key)
