"""Human labels of trajectories and steps, read strictly from JSON Lines.

One JSON object per line names a trajectory (``node_id``, ``trajectory_id`` or ``session_id``),
optionally one of its steps (``step``, the 1-based logical index of the results, or ``step_id``
with ``segment``), and gives any of ``score``, ``failed``, ``category`` and ``decisive``::

    {"trajectory_id": "run-7", "failed": true}
    {"trajectory_id": "run-7", "step": 4, "decisive": true, "category": "context_loss"}

A line may name its ``reviewer``. The file is append-only: a line with ``"retract": true`` withdraws
the latest earlier label that names the same trajectory and step in the same way, by the same
reviewer (``tracegrade review`` writes one for each undo); the labels read are those still standing.

Blank lines are allowed; anything else unusable is an ``InputError`` naming ``file:line``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError, field_validator

from tracegrade._io import JsonProblem, loads
from tracegrade.atif.asking._prompts import CATEGORIES
from tracegrade.errors import InputError, validation_message
from tracegrade.runs import MAX_INPUT_BYTES, read_capped

__all__ = [
    "LABEL_CATEGORIES", "MAX_REVIEWER_CHARS", "Label", "decisive_labels", "names_step", "of_reviewer", "parse_labels",
    "read_labels", "standing_labels",
]

LABEL_CATEGORIES: tuple[str, ...] = tuple(CATEGORIES)
"""The failure taxonomy a label's ``category`` must come from (the judge's categorisation taxonomy)."""

_MAX_LINE_BYTES = 1 << 20
MAX_REVIEWER_CHARS = 100
"""Longest reviewer name."""


class Label(BaseModel):
    """One human judgement of a trajectory or of one of its steps."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    line: int = Field(0, ge=0)
    """1-based line of the labels file it came from (0 when built in code)."""
    node_id: str | None = None
    """The node id of the results (``dir/trajectory.json`` or ``...::child``)."""
    trajectory_id: str | None = None
    """The trajectory's ``trajectory_id``."""
    session_id: str | None = None
    """The trajectory's ``session_id``."""
    step: StrictInt | None = Field(None, ge=1)
    """1-based logical step index (continuations joined), as ``index`` in the results."""
    step_id: StrictInt | None = Field(None, ge=1)
    """The producer's ``step_id`` inside ``segment``."""
    segment: StrictInt = Field(0, ge=0)
    """0 for the main document, 1.. for continuation segments (with ``step_id``)."""
    score: float | None = Field(None, strict=True)
    """The reviewer's score on any numeric scale (only its order is used)."""
    failed: StrictBool | None = None
    """Whether the reviewer judged the step or trajectory a failure."""
    category: str | None = None
    """The failure category (one of :data:`LABEL_CATEGORIES`); step labels only."""
    decisive: StrictBool | None = None
    """True on the step where the run went wrong (at most one per trajectory); step labels only."""
    note: str | None = None
    """Free text (for example the reviewer's reason); not compared."""
    extra: dict[str, Any] | None = None
    """Free-form provenance; not compared."""
    reviewer: str | None = Field(None, min_length=1, max_length=MAX_REVIEWER_CHARS)
    """Who gave the label (``agree --reviewer`` picks one reviewer's labels)."""
    retract: StrictBool | None = None
    """True on a line that withdraws the same reviewer's latest earlier label of the same target."""

    @field_validator("score")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: str | None) -> str | None:
        if value is not None and value not in LABEL_CATEGORIES:
            raise ValueError(f"must be one of {', '.join(LABEL_CATEGORIES)}")
        return value

    @field_validator("reviewer")
    @classmethod
    def _named(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or not value.isprintable()):
            raise ValueError("must be printable text, not blank")
        return value

    @property
    def is_step(self) -> bool:
        """Whether the label names a step (else the whole trajectory)."""
        return self.step is not None or self.step_id is not None

    def target(self) -> str:
        """A short human-readable description of what the label names."""
        ids = [f"{name}={value}" for name, value in self._ids().items()]
        if self.step is not None:
            ids.append(f"step={self.step}")
        elif self.step_id is not None:
            ids.append(f"step_id={self.step_id} segment={self.segment}")
        return " ".join(ids)

    def key(self) -> tuple[object, ...]:
        """What a retraction must repeat to withdraw this label: the ids as written, the step and the reviewer."""
        return (*sorted(self._ids().items()), self.step, self.step_id, self.segment, self.reviewer)

    def _ids(self) -> dict[str, str]:
        pairs = {"node_id": self.node_id, "trajectory_id": self.trajectory_id, "session_id": self.session_id}
        return {name: value for name, value in pairs.items() if value is not None}


def names_step(label: Label, *, index: int, step_id: int, segment: int) -> bool:
    """Whether a step label names this step: the one matching rule of every measure.

    ``step`` is the logical ``index`` (continuations joined); ``step_id`` is the producer's id inside ``segment``.
    """
    if label.step is not None:
        return label.step == index
    return label.step_id is not None and label.step_id == step_id and label.segment == segment


def decisive_labels(labels: Iterable[Label]) -> list[Label]:
    """The step labels marked decisive (named by ``step`` or ``step_id``), in file order.

    Raises:
        InputError: two of them name the same trajectory.
    """
    seen: dict[frozenset[tuple[str, str]], int] = {}
    found = []
    for label in labels:
        if not label.decisive or not label.is_step:
            continue
        key = frozenset(label._ids().items())
        if key in seen:
            raise InputError(f"labels lines {seen[key]} and {label.line} both mark a decisive step of the same "
                             "trajectory")
        seen[key] = label.line
        found.append(label)
    return found


def read_labels(path: Path) -> tuple[Label, ...]:
    """Read a labels file (JSON Lines).

    Raises:
        InputError: the file cannot be read, or a line is not a valid label (``file:line: reason``).
    """
    data = read_capped(path, MAX_INPUT_BYTES)  # a FIFO or device is refused, never waited on
    return parse_labels(data.split(b"\n"), str(path))


def parse_labels(lines: Iterable[bytes], name: str, *, allow_empty: bool = False) -> tuple[Label, ...]:
    """Parse label lines into the labels still standing; ``name`` is the file name used in error messages.

    Raises:
        InputError: a line is not a valid label, a retraction withdraws nothing, or (unless ``allow_empty``)
            no label stands.
    """
    labels = [_label(raw, f"{name}:{number}", number) for number, raw in enumerate(lines, start=1) if raw.strip()]
    standing = standing_labels(labels, name)
    if not standing and not allow_empty:
        raise InputError(f"{name}: no labels (expected one JSON object per line)")
    return standing


def standing_labels(labels: Iterable[Label], name: str) -> tuple[Label, ...]:
    """The labels no later retraction withdrew, in file order (retractions themselves left out).

    Raises:
        InputError: a retraction has no earlier standing label of the same target and reviewer.
    """
    kept: dict[int, Label] = {}
    latest: dict[tuple[object, ...], list[int]] = {}
    for position, label in enumerate(labels):
        earlier = latest.setdefault(label.key(), [])
        if not label.retract:
            kept[position] = label
            earlier.append(position)
            continue
        if not earlier:
            who = f"reviewer {label.reviewer!r}" if label.reviewer is not None else "no reviewer"
            raise InputError(f"{name}:{label.line}: retracts nothing (no earlier label of {label.target()} by {who})")
        del kept[earlier.pop()]
    return tuple(kept.values())


def of_reviewer(labels: Iterable[Label], reviewer: str) -> tuple[Label, ...]:
    """The labels given by ``reviewer``."""
    return tuple(label for label in labels if label.reviewer == reviewer)


def _label(raw: bytes, where: str, number: int) -> Label:
    if len(raw) > _MAX_LINE_BYTES:
        raise InputError(f"{where}: line longer than {_MAX_LINE_BYTES} bytes")
    try:
        value = loads(raw.rstrip(b"\r"))
    except JsonProblem as problem:
        raise InputError(f"{where}: {problem.message} ({problem.where})" if problem.where else f"{where}: {problem}",
                         code=problem.code) from None
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(value).__name__}")
    if "line" in value:
        raise InputError(f"{where}: 'line' is reserved")
    try:
        label = Label.model_validate({**value, "line": number})
    except ValidationError as exc:
        raise InputError(f"{where}: {validation_message(exc)}") from None
    _check_shape(label, where)
    return label


def _check_shape(label: Label, where: str) -> None:
    if not label._ids():
        raise InputError(f"{where}: name the trajectory with node_id, trajectory_id or session_id")
    if label.step is not None and label.step_id is not None:
        raise InputError(f"{where}: give step or step_id, not both")
    if label.segment and label.step_id is None:
        raise InputError(f"{where}: segment needs step_id")
    if not label.is_step and (label.category is not None or label.decisive is not None):
        raise InputError(f"{where}: category and decisive need a step (step or step_id)")
    if label.retract is not None:
        if not label.retract:
            raise InputError(f"{where}: retract: give true or leave it out")
        if (label.score, label.failed, label.category, label.decisive) != (None, None, None, None):
            raise InputError(f"{where}: a retraction gives no score, failed, category or decisive")
        return
    if label.score is None and label.failed is None and label.category is None and label.decisive is None:
        raise InputError(f"{where}: give at least one of score, failed, category, decisive")
