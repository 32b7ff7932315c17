"""Reference registries: rubrics paired with expected answers, read from a local JSON file.

The file looks like::

    {"version": 1,
     "rubrics": {"<rubric>": {"description": "...", "aggregation": "weighted_mean",
                              "criteria": [{"name": "...", "description": "...", "weight": 1}],
                              "references": {"<id>": {"answer": "..."}}}}}
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from tracegrade.errors import ConfigError, InputError
from tracegrade.rubric import (
    MAX_NAME_CHARS,
    Rubric,
    TextParseError,
    as_path,
    check_keys,
    parse_json,
    read_capped_text,
    rubric_from_data,
    text_field,
    version_text,
)

if TYPE_CHECKING:
    from tracegrade.atif.reading._records import TrajectoryNode

__all__ = ["DEFAULT_REFERENCE_ID", "REFERENCE_REGISTRY_MAX_BYTES", "ReferenceChoice", "ReferenceRubric",
           "load_reference_rubric"]

REFERENCE_REGISTRY_MAX_BYTES = 10 * 1024 * 1024
"""Cap on a reference registry file (10 MiB)."""

DEFAULT_REFERENCE_ID = "default"
"""Reference used when a trajectory names none and its ``trajectory_id`` has no reference."""

_PARAM = "reference_registry_path"
_ANSWER_MAX_CHARS = REFERENCE_REGISTRY_MAX_BYTES


@dataclass(frozen=True, slots=True)
class ReferenceChoice:
    """The reference picked for one trajectory, or why none could be."""

    reference_id: str | None
    answer: str | None
    problem: str | None = None
    """Human-readable reason when no reference was found."""


@dataclass(frozen=True, slots=True)
class ReferenceRubric:
    """One rubric of a reference registry, with its expected answers by reference id."""

    name: str
    rubric: Rubric
    answers: Mapping[str, str]
    """Reference id -> expected answer (read-only)."""
    path: Path
    registry_version: str | None
    registry_sha256: str
    """SHA-256 of the registry file's bytes, so results can name the exact file."""

    def select(self, node: TrajectoryNode) -> ReferenceChoice:
        """The reference of a node, or a choice with ``problem`` set.

        A string ``extra.reference_id`` on the trajectory wins, and must exist; otherwise the node's
        ``trajectory_id`` when it names a reference; otherwise the ``default`` reference.
        """
        extra = node.trajectory.extra if node.trajectory is not None else None
        explicit = (extra or {}).get("reference_id")
        if explicit is not None:
            return self._explicit(explicit)
        for candidate in (node.trajectory_id, DEFAULT_REFERENCE_ID):
            if candidate is not None and candidate in self.answers:
                return ReferenceChoice(candidate, self.answers[candidate])
        return ReferenceChoice(None, None, self._nothing_found(node.trajectory_id))

    def _explicit(self, reference_id: object) -> ReferenceChoice:
        if not isinstance(reference_id, str) or reference_id not in self.answers:
            problem = f"extra.reference_id {reference_id!r} is not a reference of rubric {self.name!r}"
            return ReferenceChoice(None, None, problem)
        return ReferenceChoice(reference_id, self.answers[reference_id])

    def _nothing_found(self, trajectory_id: str | None) -> str:
        return (
            f"rubric {self.name!r} has no reference for this trajectory: no extra.reference_id, "
            f"trajectory_id {trajectory_id!r} is not a reference id, "
            f"and there is no {DEFAULT_REFERENCE_ID!r} reference"
        )


def load_reference_rubric(path_value: object, rubric_name: str) -> ReferenceRubric:
    """The rubric ``rubric_name`` with its references, from the registry at ``path_value``, all of it validated.

    Raises:
        ConfigError: the path is unusable, the file breaks a rule, or ``rubric_name`` is not in it (the message
            lists the rubrics it has).
        InputError: the file cannot be read or is not strict JSON (naming the file, line and column).
    """
    path = as_path(path_value, _PARAM)
    text, raw = read_capped_text(path, param=_PARAM, max_bytes=REFERENCE_REGISTRY_MAX_BYTES)
    try:
        data = parse_json(text)
    except TextParseError as exc:
        raise InputError(f"{_PARAM}: {path}: {exc}") from None
    where = f"{_PARAM} ({path})"
    version, entries = _registry(data, where)
    rubrics = {name: _entry(entry, name, version, where) for name, entry in entries.items()}
    if rubric_name not in rubrics:
        available = ", ".join(sorted(rubrics))
        raise ConfigError(f"reference_rubric: {rubric_name!r} is not in {path}; available rubrics: {available}")
    rubric, answers = rubrics[rubric_name]
    digest = hashlib.sha256(raw).hexdigest()
    return ReferenceRubric(rubric_name, rubric, MappingProxyType(answers), path, version, digest)


def _registry(data: object, where: str) -> tuple[str | None, Mapping[str, Any]]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: the registry must be a JSON object")
    check_keys(data, allowed=("rubrics", "version"), required=("rubrics",), where=where)
    version = version_text(data["version"], where) if "version" in data else None
    entries = data["rubrics"]
    if not isinstance(entries, Mapping) or not entries:
        raise ConfigError(f"{where}: rubrics must be a non-empty object")
    for name in entries:
        text_field(name, where, "rubric name", max_chars=MAX_NAME_CHARS)
    return version, entries


def _entry(entry: object, name: str, version: str | None, where: str) -> tuple[Rubric, dict[str, str]]:
    here = f"{where}: rubrics.{name}"
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{here}: must be an object with criteria and references")
    rubric = rubric_from_data(
        entry, where=here, default_name=name, default_version=version or "1", extra_keys=("references",)
    )
    if "references" not in entry:
        raise ConfigError(f"{here}: missing required key(s) references")
    return rubric, _answers(entry["references"], here)


def _answers(references: object, where: str) -> dict[str, str]:
    if not isinstance(references, Mapping):
        raise ConfigError(f"{where}: references must be an object of reference id -> {{answer}}")
    answers: dict[str, str] = {}
    for reference_id, reference in references.items():
        here = f"{where}: references.{reference_id}"
        text_field(reference_id, where, "reference id", max_chars=MAX_NAME_CHARS)
        if not isinstance(reference, Mapping):
            raise ConfigError(f"{here}: must be an object with an answer")
        check_keys(reference, allowed=("answer",), required=("answer",), where=here)
        answers[reference_id] = text_field(reference["answer"], here, "answer", max_chars=_ANSWER_MAX_CHARS)
    return answers
