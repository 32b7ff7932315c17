"""Read one input file into validated ATIF documents."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tracegrade._io import JsonProblem, loads
from tracegrade.atif.reading._models import Trajectory
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.runs import UnreadableFile, read_capped

__all__ = ["Document", "DocumentProblem", "read_bounded", "read_documents", "validate_document"]

_INDEXED = re.compile(r"^(?P<field>[a-z_]+\[\d+\](?:\.[a-z_]+)*): (?P<rest>.*)$")
SUPPORTED_VERSIONS = tuple(f"ATIF-v1.{minor}" for minor in range(9))


@dataclass(frozen=True, slots=True)
class Document:
    """One validated trajectory document and where it came from."""

    path: Path
    location: str
    """``""`` for a JSON file, ``"line N"`` for a JSONL line."""
    trajectory: Trajectory


@dataclass(frozen=True, slots=True)
class DocumentProblem:
    """Why one document could not be used."""

    path: Path
    location: str
    """``""`` for a JSON file, ``"line N"`` for a JSONL line (as :attr:`Document.location`)."""
    code: str
    message: str
    """One line naming the place inside the document (a JSON pointer), never the file or line."""
    line: int | None = None
    """Line of the file the problem is on: a JSONL document's line, or where a JSON file stops parsing."""
    column: int | None = None
    """Column of that line where the text stops parsing."""

    def describe(self) -> str:
        """``path[:line[:column]]: message`` on one line."""
        place = "" if self.line is None else f":{self.line}" + ("" if self.column is None else f":{self.column}")
        return f"{self.path}{place}: {self.message}"


def read_documents(path: Path, options: LoadOptions) -> Iterator[Document | DocumentProblem]:
    """Yield every document of a ``.json`` or ``.jsonl`` file, each validated or explained."""
    data = read_bounded(path, options.max_file_bytes)
    if isinstance(data, DocumentProblem):
        yield data
    elif path.suffix == ".jsonl":
        for number, line in enumerate(data.split(b"\n"), start=1):
            if line.strip():
                yield _parse(path, number, line, options)
    else:
        yield _parse(path, None, data, options)


def read_bounded(path: Path, limit: int) -> bytes | DocumentProblem:
    """Read a regular file of at most ``limit`` bytes (``runs.read_capped``: a FIFO or device is refused)."""
    try:
        return read_capped(path, limit, limit_name="max_file_bytes")
    except UnreadableFile as exc:
        return DocumentProblem(path, "", exc.code, exc.reason)


def _parse(path: Path, number: int | None, data: bytes, options: LoadOptions) -> Document | DocumentProblem:
    """One document: a whole JSON file (``number`` None) or line ``number`` of a JSONL file."""
    location = "" if number is None else f"line {number}"
    try:
        raw = loads(data)
    except JsonProblem as exc:
        line = exc.line if number is None else number  # a JSONL line is one line of text: its own line 1
        message = exc.describe() if exc.pointer is not None else exc.message  # a position goes in line and column
        return DocumentProblem(path, location, exc.code, message, line, exc.column if line is not None else None)
    result = validate_document(raw, options)
    if isinstance(result, Trajectory):
        return Document(path, location, result)
    code, message = result
    return DocumentProblem(path, location, code, message, number)


_ATIF_KEYS = ("schema_version", "agent", "steps")
"""Keys every ATIF trajectory has: a document with none of them is something else."""


def validate_document(raw: Any, options: LoadOptions) -> Trajectory | tuple[str, str]:
    """Validate decoded JSON as an ATIF trajectory, or return ``(code, one-line message)``."""
    if not isinstance(raw, dict):
        return "schema_violation", f"expected a JSON object, got {type(raw).__name__}"
    problem = _normalise_versions(raw, "")
    if problem is not None:
        return problem
    steps = raw.get("steps")
    if isinstance(steps, list) and len(steps) > options.max_steps_per_trajectory:
        return "too_many_steps", (
            f"/steps has {len(steps)} steps, over max_steps_per_trajectory={options.max_steps_per_trajectory}"
        )
    try:
        return Trajectory.model_validate(raw)
    except ValidationError as exc:
        described = _describe_validation(exc)
        if not any(key in raw for key in _ATIF_KEYS):
            described = f"not an ATIF trajectory (no {', '.join(_ATIF_KEYS)}): {described}"
        return "schema_violation", described
    except RecursionError:
        return "too_deep", "document nesting is too deep"


def _normalise_versions(raw: dict[str, Any], pointer: str) -> tuple[str, str] | None:
    """Apply the ``atif_schema_version`` alias and check the declared version, recursively."""
    if "atif_schema_version" in raw:
        alias = raw.pop("atif_schema_version")
        if "schema_version" in raw and raw["schema_version"] != alias:
            return "schema_violation", (
                f"{pointer}/atif_schema_version {alias!r} disagrees with schema_version {raw['schema_version']!r}"
            )
        raw["schema_version"] = alias
    version = raw.get("schema_version")
    if version is not None and version not in SUPPORTED_VERSIONS:
        return "unsupported_version", (
            f"{pointer}/schema_version {version!r} is not supported (ATIF-v1.0 to ATIF-v1.8)"
        )
    subs = raw.get("subagent_trajectories")
    if isinstance(subs, list):
        for index, sub in enumerate(subs):
            if isinstance(sub, dict):
                problem = _normalise_versions(sub, f"{pointer}/subagent_trajectories/{index}")
                if problem is not None:
                    return problem
    return None


def _describe_validation(exc: ValidationError) -> str:
    """The deepest problem, at its place in the document (never a parser's union branch), in one line.

    A value that fits no branch of a union (a message that is neither text nor a list of parts) is reported
    once, with what each branch expected.
    """
    errors = exc.errors(include_url=False, include_input=False)
    places = [_place(error["loc"]) for error in errors]
    chosen = max(range(len(errors)), key=lambda i: (places[i].count("/"), -i))  # the branch that got furthest
    pointer = places[chosen]
    same = [chosen]
    if errors[chosen]["loc"] and _is_branch(errors[chosen]["loc"][-1]):  # fits no branch: say what each expected
        same = [i for i, place in enumerate(places)
                if place == pointer and errors[i]["loc"] and _is_branch(errors[i]["loc"][-1])]
    messages = list(dict.fromkeys(str(errors[i]["msg"]).removeprefix("Value error, ") for i in same))
    message = _either(messages)
    match = _INDEXED.match(message)
    if match and not pointer:
        pointer = "/" + match["field"].replace("[", "/").replace("].", "/").replace("]", "").replace(".", "/")
        message = match["rest"]
    more = len(errors) - len(same)
    suffix = f" (+{more} more)" if more else ""
    return f"{pointer or '/'}: {message}{suffix}".replace("\n", " ")


_BRANCH = re.compile(r"[\[\]()-]|^[A-Z]|^(str|int|float|bool|bytes|dict|list|none|tuple|set|frozenset)$")
"""A validation error's location part that names a union branch (a type), not a field of the document."""


def _is_branch(part: int | str) -> bool:
    return isinstance(part, str) and _BRANCH.search(part) is not None


def _place(loc: tuple[int | str, ...]) -> str:
    return "".join(f"/{part}" for part in loc if not _is_branch(part))


def _either(messages: list[str]) -> str:
    """``Input should be a valid string or a valid list`` from one message per union branch."""
    prefix = "Input should be "
    if len(messages) > 1 and all(m.startswith(prefix) for m in messages):
        return prefix + " or ".join(m.removeprefix(prefix) for m in messages)
    return "; ".join(messages)
