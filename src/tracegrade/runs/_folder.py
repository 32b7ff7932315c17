"""Run folders: files written atomically, then a manifest that marks the folder complete.

A run folder is complete exactly when ``manifest.json`` exists and every file it lists has the
recorded size and SHA-256. The manifest is removed before a job writes anything and written last,
after every file has been flushed to disk, so a crash (or a power loss) at any point leaves a folder
that :func:`read_manifest` refuses instead of a silent mix of two jobs' files.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from tracegrade.errors import ConfigError, InputError, OutputError
from tracegrade.runs._atomic import atomic_file, write_atomic
from tracegrade.runs._csv import spreadsheet_safe
from tracegrade.runs._status import JobStatus

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "JSON_OPTIONS", "MANIFEST_NAME", "Manifest", "RunFolder", "amend_manifest", "claim_output", "dump_json",
    "read_manifest", "read_verified",
]

MANIFEST_NAME = "manifest.json"
JOB_MARKER = ".tracegrade-job.json"
"""Kind and job id of a run being written (removed once the manifest is): a killed run can be resumed."""
MANIFEST_FORMAT = "tracegrade-run-folder/1"

Manifest = dict[str, Any]


JSON_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
"""The orjson options of :func:`dump_json` (for writers that stream a document in pieces)."""


def dump_json(obj: Any) -> bytes:
    """Deterministic, indented JSON bytes (sorted keys, numpy values allowed, trailing newline)."""
    return orjson.dumps(obj, option=JSON_OPTIONS) + b"\n"


class RunFolder:
    """A folder that receives a job's files and, last, a manifest listing them.

    Args:
        path: The folder (created when missing).
        kind: What wrote it (``atif-judge``, ``suite-run``, ``dabench-eval-v2``...).
        job_id: The job's id, recorded in the manifest.
        mode: Permission bits of every file written (default: the umask's).

    Raises:
        OutputError: when ``path`` is not a usable folder; checked before any work is paid for.
    """

    def __init__(self, path: Path, *, kind: str, job_id: str, mode: int | None = None) -> None:
        self.path = path
        self.kind = kind
        self.job_id = job_id
        self._mode = mode
        self._files: dict[str, dict[str, Any]] = {}
        _check_usable(path)
        self._root = path.resolve()
        self._inside: set[Path] = {path}
        """Folders made for files and found to stay inside the run folder (checked once each)."""
        try:  # the marker first: a run killed from here on can be told apart from another command's folder
            (path / JOB_MARKER).write_bytes(dump_json({"kind": kind, "job_id": job_id}))
            (path / MANIFEST_NAME).unlink(missing_ok=True)
        except OSError as exc:
            raise OutputError(f"{path}: cannot remove the previous manifest ({exc.strerror})") from None

    def write_bytes(self, name: str, data: bytes) -> Path:
        """Write one file atomically; ``name`` is relative and may contain sub-folders."""
        target = self.path / _relative(name)
        try:
            self._make_parent(target)
            write_atomic(target, data, mode=self._mode, sync=False)  # flushed once, in finish
        except OSError as exc:
            raise OutputError(f"{target}: cannot write ({exc.strerror or exc})") from None
        self._files[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        return target

    def write_chunks(self, name: str, chunks: Iterable[bytes | memoryview]) -> Path:
        """Write one file atomically from pieces produced while it is written (the whole is never held).

        A worker thread writes and hashes each piece while the next is produced: both release the GIL.
        """
        target = self.path / _relative(name)
        digest, size = hashlib.sha256(), 0
        try:
            self._make_parent(target)
            with atomic_file(target, mode=self._mode, sync=False) as handle, ThreadPoolExecutor(1) as worker:
                pending: Future[None] | None = None
                for piece in chunks:
                    chunk = memoryview(piece)
                    if pending is not None:
                        pending.result()
                    pending = worker.submit(_write_and_hash, handle, digest, chunk)
                    size += chunk.nbytes
                if pending is not None:
                    pending.result()
        except OSError as exc:
            raise OutputError(f"{target}: cannot write ({exc.strerror or exc})") from None
        self._files[name] = {"bytes": size, "sha256": digest.hexdigest()}
        return target

    def _make_parent(self, target: Path) -> None:
        """Create the file's folder; refuse a sub-folder that is a symbolic link leading out of the run folder."""
        if target.parent in self._inside:
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.parent.resolve().is_relative_to(self._root):
            raise OutputError(f"{target}: a symbolic link inside the run folder leads out of it; nothing was written")
        self._inside.add(target.parent)

    def write_text(self, name: str, text: str) -> Path:
        """Write UTF-8 text."""
        return self.write_bytes(name, text.encode())

    def write_json(self, name: str, obj: Any) -> Path:
        """Write deterministic indented JSON (see :func:`dump_json`)."""
        return self.write_bytes(name, dump_json(obj))

    def write_csv(self, name: str, frame: pd.DataFrame) -> Path:
        """Write a DataFrame as CSV without its index (empty cells for missing values).

        Text cells and headers are made :func:`~tracegrade.runs.spreadsheet_safe`.
        """
        safe = frame.rename(columns=_safe_cell).map(_safe_cell)
        return self.write_bytes(name, safe.to_csv(index=False, lineterminator="\n").encode())

    def write_parquet(self, name: str, frame: pd.DataFrame) -> Path:
        """Write a DataFrame as Parquet without its index."""
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        return self.write_bytes(name, buffer.getvalue())

    @property
    def files(self) -> dict[str, Path]:
        """Every file written so far, by name."""
        return {name: self.path / name for name in self._files}

    def finish(self, status: JobStatus, metadata: Mapping[str, Any] | None = None, *, stamp: bool = True) -> Path:
        """Flush every file to disk, then write ``manifest.json``: job id, kind, status, metadata, files.

        Args:
            status: How the job ended.
            metadata: JSON-serialisable facts about the run.
            stamp: Record the finishing time; False keeps the manifest identical across reruns of
                the same inputs (for reproducible run folders).
        """
        manifest: Manifest = {
            "format": MANIFEST_FORMAT,
            "kind": self.kind,
            "job_id": self.job_id,
            "status": str(status),
            "metadata": dict(metadata or {}),
            "files": dict(sorted(self._files.items())),
        }
        if stamp:
            manifest["finished_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        flush_filesystem(self.path)  # one flush for every file written, instead of one fsync per file
        target = self.path / MANIFEST_NAME
        try:
            write_atomic(target, dump_json(manifest), mode=self._mode)
            (self.path / JOB_MARKER).unlink(missing_ok=True)
        except OSError as exc:
            raise OutputError(f"{target}: cannot write ({exc.strerror or exc})") from None
        return target


def _safe_cell(value: Any) -> Any:
    return spreadsheet_safe(value) if isinstance(value, str) else value


def _write_and_hash(handle: BinaryIO, digest: Any, chunk: memoryview) -> None:
    handle.write(chunk)
    digest.update(chunk)


def flush_filesystem(path: Path) -> None:
    """Flush the written data and metadata of the file system that holds ``path`` to disk.

    Linux's ``syncfs`` flushes only that file system; elsewhere ``os.sync`` flushes all of them.
    """
    syncfs = _syncfs()
    if syncfs is None:
        os.sync()
        return
    descriptor = os.open(path, os.O_RDONLY)
    try:
        if syncfs(descriptor) != 0:
            os.sync()
    finally:
        os.close(descriptor)


@functools.cache
def _syncfs() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # only where syncfs exists

    try:
        function: Callable[[int], int] = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    return function


def read_manifest(path: Path, *, verify: bool = True) -> Manifest:
    """The manifest of a complete run folder.

    Args:
        path: The run folder.
        verify: Also check every listed file's size and SHA-256.

    Raises:
        InputError: when the folder has no manifest (a job did not finish writing it) or a listed
            file is missing or differs from what the manifest records.
    """
    target = path / MANIFEST_NAME
    try:
        manifest = orjson.loads(target.read_bytes())
    except FileNotFoundError:
        raise InputError(f"{path}: not a complete run folder (no {MANIFEST_NAME})", code="incomplete_run") from None
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InputError(f"{target}: unreadable manifest ({exc})", code="incomplete_run") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise InputError(f"{target}: not a tracegrade run-folder manifest", code="incomplete_run")
    if verify:
        for name, entry in manifest.get("files", {}).items():
            _verified_bytes(path, name, entry)
    return manifest


def amend_manifest(path: Path, names: Sequence[str]) -> bool:
    """Record files added to (or rewritten in) a complete run folder after it finished.

    The folder's other files are checked first, so an amended manifest never vouches for a folder that
    was already inconsistent; the named files may already have been rewritten. Returns False, writing
    nothing, when the folder has no manifest.

    Raises:
        InputError: a listed file differs from the manifest, or a named file is missing.
        OutputError: the manifest cannot be written.
    """
    if not (path / MANIFEST_NAME).exists():
        return False
    manifest = read_manifest(path, verify=False)
    for name, entry in manifest.get("files", {}).items():
        if name not in names:
            _verified_bytes(path, name, entry)
    for name in names:
        file = path / _relative(name)
        try:
            data = file.read_bytes()
        except OSError:
            raise InputError(f"{file}: missing, cannot be recorded in {MANIFEST_NAME}", code="incomplete_run") from None
        manifest["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    manifest["files"] = dict(sorted(manifest["files"].items()))
    try:
        write_atomic(path / MANIFEST_NAME, dump_json(manifest))
    except OSError as exc:
        raise OutputError(f"{path / MANIFEST_NAME}: cannot write ({exc.strerror or exc})") from None
    return True


def read_verified(path: Path, name: str) -> tuple[Manifest, bytes | None]:
    """The manifest of a complete run folder, every listed file verified, and the bytes of ``name`` read once.

    A ``name`` the manifest does not list is read as it is; None when the folder has no such file.

    Raises:
        InputError: as :func:`read_manifest`.
    """
    manifest = read_manifest(path, verify=False)
    wanted: bytes | None = None
    for listed, entry in manifest.get("files", {}).items():
        data = _verified_bytes(path, listed, entry)
        if listed == name:
            wanted = data
    if wanted is None:
        try:
            wanted = (path / name).read_bytes()
        except FileNotFoundError:
            return manifest, None
    return manifest, wanted


def _verified_bytes(folder: Path, name: str, entry: Mapping[str, Any]) -> bytes:
    file = folder / _relative(name)
    try:
        data = file.read_bytes()
    except OSError:
        raise InputError(f"{file}: listed in {MANIFEST_NAME} but missing", code="incomplete_run") from None
    if len(data) != entry.get("bytes") or hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        raise InputError(f"{file}: differs from {MANIFEST_NAME} (written by another job?)", code="incomplete_run")
    return data


def _relative(name: str) -> PurePosixPath:
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise ValueError(f"run-folder file names are relative and stay inside the folder: {name!r}")
    return relative


def claim_output(path: Path, *, kind: str, job_id: str | None = None, overwrite: bool = False,
                 own: Collection[str] = ()) -> None:
    """Refuse to write into a non-empty folder that is not this command's earlier (resumable) run.

    The folder is this command's when its manifest says ``kind`` (and ``job_id``, when given), or when
    every entry in it is one of ``own`` (a command that writes no manifest; ``name*`` matches a prefix).
    ``overwrite`` writes into any folder: files of the same names are replaced and the new manifest lists
    what this run wrote.

    Raises:
        ConfigError: the folder holds something else, and ``overwrite`` is off (exit 2).
    """
    if overwrite or not path.is_dir():
        return
    try:
        entries = sorted(entry.name for entry in path.iterdir())
    except OSError:
        return  # not readable: the writability check names the problem
    prefixes = (*(name[:-1] for name in own if name.endswith("*")), ".tracegrade-")
    if not entries or all(name in own or name.startswith(prefixes) for name in entries):
        return
    manifest = _json_of(path / MANIFEST_NAME)
    complete = isinstance(manifest, dict) and manifest.get("format") == MANIFEST_FORMAT
    found = manifest if complete else _json_of(path / JOB_MARKER)  # a run killed before its manifest
    if isinstance(found, dict) and "kind" in found:
        found_kind, found_job = found.get("kind"), found.get("job_id")
        if found_kind == kind and (job_id is None or found_job == job_id):
            return
        run = "run" if complete else "unfinished run"
        held = (f"the {run} of job {found_job}" if found_kind == kind
                else f"the {run} of another command ({found_kind}, job {found_job})")
    else:
        held = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'} and no run manifest"
    raise ConfigError(f"{path}/ is not empty: it holds {held}; give another output folder, or --overwrite to "
                      "write into it")


def _json_of(path: Path) -> Any:
    """The JSON in ``path``, or None when it is missing or unreadable."""
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None


def _check_usable(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise OutputError(f"{path}: the output exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".tracegrade-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise OutputError(f"{path}: the output folder is not writable ({exc.strerror or exc})") from None
