"""What an import reads and writes: input files in; trajectories under ``trajectories/``, ``import_report.json``."""

from __future__ import annotations

import os
import re
import secrets
import shutil
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from pydantic import Field

from tracegrade._io import replace_path, write_atomic
from tracegrade.atif.importing._spans import Tally
from tracegrade.atif.reading._document import validate_document
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.atif.reading._records import FrozenRecord
from tracegrade.errors import InputError, OutputError

__all__ = ["REPORT_NAME", "SCHEMA_VERSION", "ImportReport", "ImportResult", "ImportWriter", "ImportedFileReport",
           "TrajectoryReport", "file_report", "input_files", "slug", "trajectory_report", "unique"]

SCHEMA_VERSION = "ATIF-v1.7"
REPORT_NAME = "import_report.json"
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")
_UNBOUNDED = LoadOptions(max_steps_per_trajectory=1 << 30)


class ImportedFileReport(FrozenRecord):
    """What one input file held and what of it could not be carried into ATIF."""

    path: str
    """The input file."""
    formats: list[str]
    """The shapes read from it (`otlp-json`, `tempo`, `jaeger`, `span-list`, `attribute-map`, `inspect-eval`...)."""
    records: int
    """Spans (OpenTelemetry) or samples (Inspect AI) read."""
    trajectories: list[str]
    """Root trajectories built from it."""
    not_mapped: dict[str, int] = Field(default_factory=dict)
    """Things read but not carried into ATIF, counted by reason (most frequent first)."""
    notes: dict[str, int] = Field(default_factory=dict)
    """Things carried in a way worth knowing (orphan spans under the root, a tool span without its call...)."""


def file_report(path: Path, formats: list[str], records: int, trajectories: list[str], tally: Tally
                ) -> ImportedFileReport:
    """The report of one input file, with what its ``tally`` counted."""
    return ImportedFileReport(path=str(path), formats=formats, records=records, trajectories=trajectories,
                              not_mapped=tally.as_dict(), notes=tally.notes_dict())


class TrajectoryReport(FrozenRecord):
    """One written trajectory tree, counted over the root and its sub-agents."""

    trajectory_id: str
    path: str
    """The file written, relative to the output folder."""
    steps: int
    agents: list[str]
    """Agent names in the tree, root first, then sub-agents in order."""
    tool_calls: int
    subagents: int
    task_found: bool = True
    """Whether the root has a task (``extra.task_instruction`` or a user step with text): auto-mode judging
    derives its criteria from it, and refuses a run holding a root without one."""


class ImportReport(FrozenRecord):
    """``import_report.json``: every input file and every trajectory written."""

    importer: str
    """``otel`` or ``inspect``."""
    files: list[ImportedFileReport]
    trajectories: list[TrajectoryReport]


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import wrote."""

    trajectories: tuple[Path, ...]
    report_path: Path
    report: ImportReport


def input_files(paths: Sequence[Path], suffixes: Collection[str], *, regular: bool = False
                ) -> list[tuple[Path, bool]]:
    """Every file to read, and whether it was found in a folder (``suffixes`` chosen there) rather than named.

    A named path must exist (and be a regular file when ``regular``; otherwise a FIFO or device is left to the
    reader to refuse by name).

    Raises:
        InputError: a path that does not exist (or is not a regular file when ``regular``).
    """
    found: list[tuple[Path, bool]] = []
    for path in paths:
        if path.is_dir():
            found.extend((p, True) for p in sorted(path.rglob("*")) if p.suffix in suffixes and p.is_file())
        elif path.is_file() if regular else path.exists():
            found.append((path, False))
        else:
            raise InputError(f"{path}: no such file or directory")
    return found


def slug(text: str, fallback: str = "trace") -> str:
    """A file-system-safe name (``fallback`` when nothing of ``text`` is left)."""
    return _SLUG.sub("-", text).strip("-") or fallback


def unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``... when it is taken; the result is added to ``taken``."""
    found, number = name, 1
    while found in taken:  # names rarely repeat: a short walk
        number += 1
        found = f"{name}-{number}"
    taken.add(found)
    return found


def trajectory_report(document: dict[str, Any], path: str) -> TrajectoryReport:
    """Counts of one trajectory tree: steps, agents, tool calls and sub-agents."""
    steps = calls = trees = 0
    agents: list[str] = []
    stack = [document]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.get("subagent_trajectories") or ()))
        trees += 1
        steps += len(node["steps"])
        for step in node["steps"]:
            if "tool_calls" in step:
                calls += len(step["tool_calls"])
        if node["agent"]["name"] not in agents:
            agents.append(node["agent"]["name"])
    return TrajectoryReport(trajectory_id=document["trajectory_id"], path=path, steps=steps, agents=agents,
                            tool_calls=calls, subagents=trees - 1, task_found=_task_found(document))


def _task_found(document: dict[str, Any]) -> bool:
    """Whether the judge will find the root's task: a declared one, or the text of a user step."""
    declared = (document.get("extra") or {}).get("task_instruction")
    if isinstance(declared, str) and declared.strip():
        return True
    for step in document["steps"]:
        if step.get("source") != "user":
            continue
        message = step.get("message")
        parts = message if isinstance(message, list) else [{"type": "text", "text": message}]
        if any(isinstance(p, dict) and p.get("type") == "text" and str(p.get("text") or "").strip() for p in parts):
            return True
    return False


class ImportWriter:
    """Writes an import's trajectories one by one as they are built, then its report.

    ``out_dir/trajectories/`` is replaced as a whole: the files go into a new folder beside it, which takes its
    place when :meth:`finish` runs, so it holds this import's files and nothing else, complete or not at all
    (an error on the way removes the new folder). An existing ``trajectories/`` that no import wrote (no
    ``import_report.json`` beside it) is refused before anything is written.

    ``validate=False`` skips checking each document against the ATIF models (for importers whose documents are
    valid by construction; ``judge`` and ``validate`` check them again when they read them).

    Raises:
        InputError: a converted document is not valid ATIF (naming its source).
        OutputError: ``out_dir`` cannot be written.
    """

    def __init__(self, out_dir: Path, *, validate: bool = True) -> None:
        self.out_dir = out_dir
        self.target = out_dir / "trajectories"
        self.validate = validate
        self.reports: list[TrajectoryReport] = []
        self.staging: Path | None = None

    def __enter__(self) -> ImportWriter:
        if self.target.exists() and not (self.out_dir / REPORT_NAME).is_file():
            raise OutputError(f"{self.target}: exists and was not written by tracegrade import; "
                              "choose another --output")
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            staging = self.out_dir / f".trajectories-{secrets.token_hex(8)}"
            staging.mkdir()  # a new name, made with the umask's permissions (as trajectories/ would be)
            self.staging = staging
        except OSError as exc:
            raise _unwritable(self.out_dir, exc) from None
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)  # after finish() it is already gone

    def add(self, name: str, source: str, document: dict[str, Any]) -> None:
        """Check (when validating) and write one trajectory tree as ``trajectories/NAME.json``."""
        assert self.staging is not None, "use the writer as a context manager"
        if self.validate:
            checked = validate_document(dict(document), _UNBOUNDED)
            if isinstance(checked, tuple):
                raise InputError(f"{source}: does not convert to valid ATIF ({checked[1]})", code=checked[0])
        self.reports.append(trajectory_report(document, f"trajectories/{name}.json"))
        try:
            _write_new(os.path.join(self.staging, f"{name}.json"),
                       orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
        except OSError as exc:
            raise _unwritable(self.out_dir, exc) from None

    def finish(self, importer: str, files: list[ImportedFileReport]) -> ImportResult:
        """Put the new ``trajectories/`` in place and write ``import_report.json``."""
        assert self.staging is not None, "use the writer as a context manager"
        report = ImportReport(importer=importer, files=files, trajectories=self.reports)
        old = self.out_dir / f"{self.staging.name}-old"
        try:
            if self.target.exists():
                replace_path(self.target, old)
            replace_path(self.staging, self.target)
            self.staging = None
            shutil.rmtree(old, ignore_errors=True)
            write_atomic(self.out_dir / REPORT_NAME,
                         orjson.dumps(report.model_dump(mode="json"), option=orjson.OPT_INDENT_2) + b"\n")
        except OSError as exc:
            raise _unwritable(self.out_dir, exc) from None
        paths = tuple(self.out_dir / t.path for t in self.reports)
        return ImportResult(paths, self.out_dir / REPORT_NAME, report)


def _write_new(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` with plain system calls (imports write thousands of files)."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view):]
    finally:
        os.close(handle)


def _unwritable(out_dir: Path, exc: OSError) -> OutputError:
    return OutputError(f"{out_dir}: cannot write the import ({type(exc).__name__}: {exc.strerror})")

