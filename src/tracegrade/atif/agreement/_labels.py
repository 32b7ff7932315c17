"""Human labels of trajectories and steps, read strictly from JSON Lines.

One JSON object per line names a trajectory (``node_id``, ``trajectory_id`` or ``session_id``),
optionally one of its steps (``step``, the 1-based logical index of the results, or ``step_id``
with ``segment``), and gives any of ``score``, ``failed``, ``category`` and ``decisive``::

    {"trajectory_id": "run-7", "failed": true}
    {"trajectory_id": "run-7", "step": 4, "decisive": true, "category": "context_loss"}

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
from tracegrade.errors import InputError
from tracegrade.runs import MAX_INPUT_BYTES, read_capped

__all__ = ["LABEL_CATEGORIES", "Label", "parse_labels", "read_labels"]

LABEL_CATEGORIES: tuple[str, ...] = tuple(CATEGORIES)
"""The failure taxonomy a label's ``category`` must come from (the judge's categorisation taxonomy)."""

_MAX_LINE_BYTES = 1 << 20


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

    def _ids(self) -> dict[str, str]:
        pairs = {"node_id": self.node_id, "trajectory_id": self.trajectory_id, "session_id": self.session_id}
        return {name: value for name, value in pairs.items() if value is not None}


def read_labels(path: Path) -> tuple[Label, ...]:
    """Read a labels file (JSON Lines).

    Raises:
        InputError: the file cannot be read, or a line is not a valid label (``file:line: reason``).
    """
    data = read_capped(path, MAX_INPUT_BYTES)  # a FIFO or device is refused, never waited on
    return parse_labels(data.split(b"\n"), str(path))


def parse_labels(lines: Iterable[bytes], name: str) -> tuple[Label, ...]:
    """Parse label lines; ``name`` is the file name used in error messages.

    Raises:
        InputError: a line is not a valid label, or the file holds none.
    """
    labels = [_label(raw, f"{name}:{number}", number) for number, raw in enumerate(lines, start=1) if raw.strip()]
    if not labels:
        raise InputError(f"{name}: no labels (expected one JSON object per line)")
    return tuple(labels)


def _label(raw: bytes, where: str, number: int) -> Label:
    if len(raw) > _MAX_LINE_BYTES:
        raise InputError(f"{where}: line longer than {_MAX_LINE_BYTES} bytes")
    try:
        value = loads(raw.rstrip(b"\r"))
    except JsonProblem as problem:
        raise InputError(
            f"{where}: {problem.message} ({problem.where})" if problem.where else f"{where}: {problem}",
            code=problem.code,
        ) from None
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(value).__name__}")
    if "line" in value:
        raise InputError(f"{where}: 'line' is reserved")
    try:
        label = Label.model_validate({**value, "line": number})
    except ValidationError as exc:
        error = exc.errors(include_url=False, include_input=False)[0]
        field = ".".join(str(part) for part in error["loc"]) or "label"
        raise InputError(f"{where}: {field}: {error['msg']}") from None
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
    if label.score is None and label.failed is None and label.category is None and label.decisive is None:
        raise InputError(f"{where}: give at least one of score, failed, category, decisive")
