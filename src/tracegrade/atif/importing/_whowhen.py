"""Import Who&When-style annotated multi-agent logs as ATIF trajectories plus a matching labels file.

A log is one JSON object with a ``history`` of turns (``content`` plus ``name`` and/or ``role``),
the task (``question``) and the annotation: ``mistake_agent``, ``mistake_step`` (0-based index
into ``history``) and ``mistake_reason``. Mapping (documented in docs/judge-quality.md):

- turn ``i`` becomes step ``step_id = i + 1`` (so the results' step index is ``i + 1`` too);
- a turn whose role is ``human`` (or ``user`` without a ``name``) is a ``user`` step, every other
  turn (agents, orchestrator, computer terminal) an ``agent`` step whose message opens with the
  speaker's name on its own line; the original name and role stay in ``extra.who_and_when``;
- ``question`` becomes ``extra.task_instruction`` (the task the judge sees);
- the labels: the trajectory ``failed`` (``not is_correct``, true when absent) and the decisive step
  ``mistake_step + 1`` (``failed: true``, the reason in ``note``, the agent in ``extra``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tracegrade._io import JsonProblem, loads, write_atomic
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.importing._output import SCHEMA_VERSION, input_files, slug
from tracegrade.atif.reading._document import validate_document
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.errors import InputError, OutputError
from tracegrade.runs import MAX_INPUT_BYTES, read_capped

__all__ = ["ImportedLog", "WhoWhenImport", "convert_log", "import_whowhen", "iter_logs", "source_of"]

@dataclass(frozen=True, slots=True)
class ImportedLog:
    """One converted log: the ATIF document, its labels and notes on oddities found."""

    name: str
    """File-system-safe name, also the trajectory id (unique within one import)."""
    trajectory: dict[str, Any]
    labels: tuple[Label, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WhoWhenImport:
    """What :func:`import_whowhen` wrote."""

    trajectories: tuple[Path, ...]
    labels_path: Path
    labels: int
    warnings: tuple[str, ...]


def import_whowhen(paths: Sequence[Path], out_dir: Path) -> WhoWhenImport:
    """Convert every log under ``paths``: ``out_dir/trajectories/<name>.json`` and ``out_dir/labels.jsonl``.

    Every document is checked against the ATIF models before anything is written; files are
    written atomically. Score them with ``tracegrade judge out_dir/trajectories``.

    Raises:
        InputError: a log is unusable, two logs get the same name, or a converted document is not valid ATIF.
        OutputError: ``out_dir`` cannot be written.
    """
    imported = _convert_all(paths)
    written = []
    try:
        for log in imported:
            target = out_dir / "trajectories" / f"{log.name}.json"
            write_atomic(target, orjson.dumps(log.trajectory, option=orjson.OPT_INDENT_2) + b"\n")
            written.append(target)
        labels = [label for log in imported for label in log.labels]
        lines = [orjson.dumps(label.model_dump(exclude={"line"}, exclude_none=True, exclude_defaults=True))
                 for label in labels]
        write_atomic(out_dir / "labels.jsonl", b"\n".join(lines) + b"\n")
    except OSError as exc:
        raise OutputError(f"{out_dir}: cannot write the import ({type(exc).__name__})") from None
    warnings = tuple(w for log in imported for w in log.warnings)
    return WhoWhenImport(tuple(written), out_dir / "labels.jsonl", len(labels), warnings)


def _convert_all(paths: Sequence[Path]) -> list[ImportedLog]:
    imported: list[ImportedLog] = []
    origin: dict[str, str] = {}
    for name, where, log in iter_logs(paths):
        if name in origin:
            raise InputError(f"{where}: imports as {name!r} like {origin[name]}; import them separately")
        origin[name] = where
        converted = convert_log(name, where, log)
        checked = validate_document(dict(converted.trajectory), LoadOptions(max_steps_per_trajectory=1 << 30))
        if isinstance(checked, tuple):
            raise InputError(f"{where}: does not convert to valid ATIF ({checked[1]})", code=checked[0])
        imported.append(converted)
    if not imported:
        raise InputError(f"no logs found under {', '.join(str(p) for p in paths)}")
    return imported


def iter_logs(paths: Sequence[Path]) -> Iterator[tuple[str, str, Any]]:
    """Yield ``(name, where, log)`` for every log under ``paths``.

    Directories are searched recursively for ``*.json`` (one log) and ``*.jsonl`` (one log per line),
    in sorted order. ``name`` is built from the parent folder and the file stem (and the line).

    Raises:
        InputError: a path is missing or a file is not valid JSON (naming the file and line).
    """
    for path in paths:  # each path's files read before the next path is looked at
        for file, _ in input_files([path], (".json", ".jsonl")):
            yield from _read_file(file)


def _read_file(file: Path) -> Iterator[tuple[str, str, Any]]:
    data = read_capped(file, MAX_INPUT_BYTES)
    base = slug(f"{file.parent.name}-{file.stem}", "log")
    if file.suffix == ".jsonl":
        for number, line in enumerate(data.split(b"\n"), start=1):
            if line.strip():
                yield f"{base}-{number}", f"{file}:{number}", _decode(line, f"{file}:{number}")
    else:
        yield base, str(file), _decode(data, str(file))


def _decode(data: bytes, where: str) -> Any:
    try:
        return loads(data)
    except JsonProblem as problem:
        raise InputError(
            f"{where}: {problem.message}" + (f" ({problem.where})" if problem.where else ""), code=problem.code
        ) from None


def convert_log(name: str, where: str, log: Any) -> ImportedLog:
    """Turn one annotated log into an ATIF trajectory (a JSON-ready dict) and its labels.

    Raises:
        InputError: the log lacks a usable ``history`` or ``mistake_step`` (naming ``where`` and the field).
    """
    if not isinstance(log, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(log).__name__}")
    history = log.get("history")
    if not isinstance(history, list) or not history:
        raise InputError(f"{where}: history: expected a non-empty list of turns")
    steps = [_step(i, turn, f"{where}: history[{i}]") for i, turn in enumerate(history)]
    mistake = _mistake_step(log, len(history), where)
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "session_id": name,
        "trajectory_id": name,
        "agent": {"name": "multi-agent-system", "version": "unknown"},
        "steps": steps,
        "extra": {"who_and_when": _provenance(log, where)},
    }
    question = log.get("question")
    if isinstance(question, str) and question.strip():
        document["extra"]["task_instruction"] = question
    labels, warnings = _labels(name, log, mistake, history)
    return ImportedLog(name, document, labels, warnings)


def source_of(turn: dict[str, Any]) -> str:
    """The ATIF source of a turn: ``user`` for the human asker, ``agent`` for every system member."""
    role = str(turn.get("role") or "").strip().lower()
    if role == "human" or (role == "user" and not turn.get("name")):
        return "user"
    return "agent"


def _step(index: int, turn: Any, where: str) -> dict[str, Any]:
    if not isinstance(turn, dict):
        raise InputError(f"{where}: expected an object with content and name/role")
    content = turn.get("content")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise InputError(f"{where}.content: expected a string, got {type(content).__name__}")
    speaker = _speaker(turn)
    source = source_of(turn)
    message = content if source == "user" or not speaker else f"{speaker}:\n{content}"
    origin = {key: turn[key] for key in ("name", "role") if isinstance(turn.get(key), str)}
    return {"step_id": index + 1, "source": source, "message": message, "extra": {"who_and_when": origin}}


def _speaker(turn: dict[str, Any]) -> str:
    name, role = turn.get("name"), turn.get("role")
    if isinstance(name, str) and name.strip():
        return name.strip()
    return role.strip() if isinstance(role, str) else ""


def _mistake_step(log: dict[str, Any], turns: int, where: str) -> int | None:
    raw = log.get("mistake_step")
    if raw is None or raw == "":
        return None
    if isinstance(raw, str) and raw.strip().isdigit():
        raw = int(raw.strip())
    if not isinstance(raw, int) or isinstance(raw, bool) or not 0 <= raw < turns:
        raise InputError(f"{where}: mistake_step: expected an index into history (0..{turns - 1}), got {raw!r}")
    return raw


def _labels(
    name: str, log: dict[str, Any], mistake: int | None, history: list[Any]
) -> tuple[tuple[Label, ...], tuple[str, ...]]:
    correct = log.get("is_correct")
    labels = [Label(trajectory_id=name, failed=not correct if isinstance(correct, bool) else True)]
    warnings: list[str] = []
    if mistake is None:
        warnings.append(f"{name}: no mistake_step, no decisive step label")
        return tuple(labels), tuple(warnings)
    agent = log.get("mistake_agent")
    reason = log.get("mistake_reason")
    if isinstance(agent, str) and agent and agent not in _speaker(history[mistake]):
        warnings.append(f"{name}: mistake_agent {agent!r} is not the speaker of history[{mistake}]")
    labels.append(Label(trajectory_id=name, step=mistake + 1, decisive=True, failed=True,
                        note=reason if isinstance(reason, str) else None,
                        extra={"mistake_agent": agent} if isinstance(agent, str) else None))
    return tuple(labels), tuple(warnings)


def _provenance(log: dict[str, Any], where: str) -> dict[str, Any]:
    keys: tuple[str, ...] = ("question_ID", "level", "is_correct", "ground_truth")
    kept = {key: log[key] for key in keys if key in log}
    return {"source": where, **kept}

