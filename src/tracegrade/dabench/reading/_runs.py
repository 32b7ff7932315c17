"""Run folders, ``summary.json`` (official form and participant variants) and the dataset."""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracegrade.dabench.reading._cells import read_answer_csv
from tracegrade.dabench.reading._records import AnswerTable, TaskInput, TaskRecord, TraceFormat
from tracegrade.dabench.reading._traces import ParsedTrace, read_json_file, read_trace
from tracegrade.errors import ConfigError, InputError

__all__ = ["RunTaskList", "SummaryEntry", "missing_artefacts", "read_summary", "read_task", "read_task_input",
           "resolve_run", "usable_task_id"]

_TASK_DIR = re.compile(r"task_(\d+)")
_VOTE = re.compile(r"trace_r(\d+)\.json")
_UNUSABLE = re.compile(r"[/\\\x00-\x1f\x7f]")
_NOT_A_FOLDER = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


@dataclass(frozen=True, slots=True)
class SummaryEntry:
    """One task as ``summary.json`` lists it (paths inside are ignored: they point at another machine)."""

    task_id: str
    succeeded: bool | None
    failure_reason: str | None
    prediction_listed: bool | None
    """Whether the entry gives a ``prediction_csv_path`` (None: the key is absent)."""
    trace_listed: bool | None = None
    """Whether the entry gives a ``trace_path`` (None: the key is absent; False also for a task folder
    that summary.json does not list)."""

    @property
    def files_named(self) -> tuple[str, ...]:
        """The task files this entry says the run wrote.

        Its trace unless ``trace_path`` is null, and a prediction when ``prediction_csv_path`` is given.
        """
        named = ("trace",) if self.trace_listed is not False else ()
        return named + (("prediction.csv",) if self.prediction_listed else ())


@dataclass(frozen=True, slots=True)
class RunTaskList:
    """What a run folder holds: its id, its task list (summary order, then unlisted folders) and extras."""

    run_id: str
    entries: tuple[SummaryEntry, ...]
    has_summary: bool
    unlisted_tasks: tuple[str, ...]
    entry_errors: tuple[tuple[int, str], ...]
    """(index in summary.tasks, message) for entries that could not be read."""


def resolve_run(run: str, runs_root: Path) -> Path:
    """A run id under ``runs_root`` or a path to a run folder.

    Raises:
        ConfigError: when neither names a folder.
    """
    direct = Path(run)
    if direct.is_dir():
        return direct
    under = runs_root / run
    if under.is_dir():
        return under
    raise ConfigError(f"run {run!r}: no such folder (tried {direct} and {under})", code="run_not_found")


def _task_key(task_id: str) -> tuple[int, str]:
    match = _TASK_DIR.fullmatch(task_id)
    return (int(match.group(1)), task_id) if match else (1 << 62, task_id)


def read_summary(run_dir: Path) -> RunTaskList:
    """Read ``summary.json`` (any variant: indented or compact, extra keys) or list the task folders.

    Raises:
        InputError: when ``summary.json`` exists but is not a JSON object with a ``tasks`` list.
    """
    folders = sorted((p.name for p in run_dir.iterdir() if p.is_dir() and _TASK_DIR.fullmatch(p.name)), key=_task_key)
    path = run_dir / "summary.json"
    if not path.exists():
        entries = tuple(SummaryEntry(t, None, None, None, False) for t in folders)
        return RunTaskList(run_dir.name, entries, False, (), ())
    document = read_json_file(path, code="invalid_summary")
    if not isinstance(document, dict) or not isinstance(document.get("tasks"), list):
        raise InputError(f"{path}: expected an object with a 'tasks' list", code="invalid_summary")
    parsed: list[SummaryEntry] = []
    errors: list[tuple[int, str]] = []
    for index, raw in enumerate(document["tasks"]):
        entry = _entry(raw)
        if entry is None:
            errors.append((index, f"{path}: tasks[{index}] has no usable task_id (a string naming one folder: no "
                                  "path separator, control character, '.' or '..')"))
        else:
            parsed.append(entry)
    listed = {e.task_id for e in parsed}
    run_id = document.get("run_id") if isinstance(document.get("run_id"), str) else run_dir.name
    unlisted = tuple(t for t in folders if t not in listed)
    extra = tuple(SummaryEntry(t, None, None, None, False) for t in unlisted)
    return RunTaskList(str(run_id), (*parsed, *extra), True, unlisted, tuple(errors))


def usable_task_id(task_id: str) -> bool:
    """Whether a task id can name a folder inside the run and the dataset.

    It must be one path component (no separator, not ``.`` or ``..``) without a control character, at most
    255 bytes. Spaces and markup are allowed: a folder may carry them, and every report escapes them.
    """
    return (bool(task_id) and task_id not in (".", "..") and not _UNUSABLE.search(task_id)
            and len(task_id.encode("utf-8", "surrogatepass")) <= 255)


def _entry(raw: object) -> SummaryEntry | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("task_id"), str):
        return None
    if not usable_task_id(raw["task_id"]):
        return None  # task ids name folders: nothing may point outside the run or the dataset
    succeeded = raw.get("succeeded") if isinstance(raw.get("succeeded"), bool) else None
    reason = raw.get("failure_reason") if isinstance(raw.get("failure_reason"), str) else None
    listed = raw.get("prediction_csv_path") is not None if "prediction_csv_path" in raw else None
    trace = raw.get("trace_path") is not None if "trace_path" in raw else None
    return SummaryEntry(raw["task_id"], succeeded, reason, listed, trace)


def read_task_input(task_id: str, data_root: Path | None) -> TaskInput:
    """``task.json``, the kinds of files under ``context/`` and ``gold.csv`` (None parts say why)."""
    if data_root is None:
        return TaskInput(task_id, gold_reason="no --data-root given")
    folder = data_root / "input" / task_id
    meta = _task_json(folder / "task.json", task_id)
    kinds, count = _context_kinds(folder / "context")
    gold_path = data_root / "output" / task_id / "gold.csv"
    gold: AnswerTable | None = None
    reason: str | None = None
    if not gold_path.is_file():
        reason = f"no gold.csv for {task_id}"
    else:
        try:
            gold = read_answer_csv(gold_path, what="gold")
        except InputError as exc:
            reason = exc.message
    return TaskInput(task_id, meta.get("difficulty"), meta.get("question"), kinds, count, gold, reason)


def _task_json(path: Path, task_id: str) -> dict[str, str]:
    if not path.exists():
        return {}
    document = read_json_file(path, code="invalid_task_json")
    if not isinstance(document, dict) or not all(isinstance(document.get(k), str) for k in ("task_id", "question")):
        raise InputError(f"{path}: needs string task_id and question", code="invalid_task_json")
    if document["task_id"] != task_id:
        raise InputError(f"{path}: task_id {document['task_id']!r} differs from its folder", code="invalid_task_json")
    return {k: v for k, v in document.items() if isinstance(v, str)}


def _context_kinds(context: Path) -> tuple[tuple[str, ...] | None, int | None]:
    if not context.is_dir():
        return None, None
    kinds: set[str] = set()
    count = 0
    for path in context.rglob("*"):
        if path.is_file() and path.name.lower() != "knowledge.md":
            count += 1
            kinds.add(path.suffix.lower().lstrip(".") or "file")
    return tuple(sorted(kinds)), count


def read_task(run_dir: Path, run_id: str, entry: SummaryEntry, data_root: Path | None) -> TaskRecord:
    """Read one task; parts that cannot be read are recorded in ``errors`` (the task is never dropped)."""
    errors: list[tuple[str, str]] = []
    folder = run_dir / entry.task_id
    try:  # one listing, no stat first: most task folders exist
        names = frozenset(os.listdir(folder))
    except OSError as exc:
        if exc.errno not in _NOT_A_FOLDER:
            raise
        names = frozenset()  # what Path.is_dir() answers False for: missing, a file, a broken or looping link
    trace, trace_file = _primary_trace(folder, names, errors)
    votes = tuple(_vote_answers(folder, names, errors))
    prediction, prediction_error = _prediction(folder / "prediction.csv", names, errors)
    try:
        task = read_task_input(entry.task_id, data_root)
    except InputError as exc:
        errors.append((exc.code, exc.message))
        task = TaskInput(entry.task_id, gold_reason=f"task.json unreadable ({exc.code})")
    fields: dict[str, Any] = trace.task_fields if trace else {}
    return TaskRecord(
        run_id=run_id,
        task_id=entry.task_id,
        trace_format=trace.format if trace else TraceFormat.MISSING,
        trace_file=trace_file,
        steps=trace.steps if trace else (),
        succeeded=entry.succeeded if entry.succeeded is not None else (trace.succeeded if trace else None),
        failure_reason=entry.failure_reason or (trace.failure_reason if trace else None),
        elapsed_seconds=trace.elapsed_seconds if trace else None,
        answer=trace.answer if trace else None,
        prediction=prediction,
        prediction_error=prediction_error,
        task=task,
        coordinator_final_decision=_opt(fields, "coordinator_final_decision", str),
        plan_attempts=_opt(fields, "plan_attempts", int),
        execution_attempts=_opt(fields, "execution_attempts", int),
        confidence_score=_unit(fields, "confidence_score"),
        documents_required=_opt(fields, "documents_required", bool),
        explanation_quality_score=_unit(fields, "explanation_quality_score"),
        vote_answers=votes,
        errors=tuple(errors),
        missing_artefacts=missing_artefacts(entry, names),
    )


def missing_artefacts(entry: SummaryEntry, names: frozenset[str]) -> tuple[str, ...]:
    """The files ``entry`` names that the task folder (its file ``names``) lacks: ``trace``, ``prediction.csv``."""
    missing = []
    if "trace" in entry.files_named and "trace.json" not in names and not _vote_files(names):
        missing.append("trace")
    if "prediction.csv" in entry.files_named and "prediction.csv" not in names:
        missing.append("prediction.csv")
    return tuple(missing)


def _opt(fields: dict[str, Any], key: str, kind: type) -> Any:
    value = fields.get(key)
    if kind is int and isinstance(value, bool):
        return None
    return value if isinstance(value, kind) else None


def _unit(fields: dict[str, Any], key: str) -> float | None:
    value = fields.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        return None
    return float(value)


def _primary_trace(
    folder: Path, names: frozenset[str], errors: list[tuple[str, str]]
) -> tuple[ParsedTrace | None, str | None]:
    candidates = ["trace.json", *sorted(_vote_files(names), key=lambda n: -_vote_no(n))]
    for name in candidates:
        if name in names:
            try:
                return read_trace(folder / name), name
            except InputError as exc:
                errors.append((exc.code, exc.message))
                return None, name
    return None, None


def _vote_no(name: str) -> int:
    match = _VOTE.fullmatch(name)
    return int(match.group(1)) if match else 0


def _vote_files(names: frozenset[str]) -> list[str]:
    return [n for n in names if _VOTE.fullmatch(n)]


def _vote_answers(folder: Path, names: frozenset[str], errors: list[tuple[str, str]]) -> Iterator[AnswerTable | None]:
    if "trace.json" not in names:
        return  # the newest vote round already stands in as the primary trace
    for name in sorted(_vote_files(names), key=_vote_no):
        try:
            yield read_trace(folder / name).answer
        except InputError as exc:
            errors.append((exc.code, exc.message))


def _prediction(
    path: Path, names: frozenset[str], errors: list[tuple[str, str]]
) -> tuple[AnswerTable | None, str | None]:
    if path.name not in names:
        return None, None
    try:
        return read_answer_csv(path, what="prediction"), None
    except InputError as exc:
        errors.append((exc.code, exc.message))
        return None, exc.code

