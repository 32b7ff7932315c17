"""Run folders: files written atomically, then a manifest that marks the folder complete.

A run folder is complete exactly when ``manifest.json`` exists and every file it lists has the
recorded size and SHA-256. The manifest is removed before a job writes anything and written last,
after every file has been flushed to disk, so a crash (or a power loss) at any point leaves a folder
that :func:`read_manifest` refuses instead of a silent mix of two jobs' files.

A job holds a lock on its folder (``.tracegrade.lock``, an advisory ``flock`` that ends with the process)
from opening it until its manifest is written: a second job into the same folder is refused, naming the
holder, instead of replacing the first one's files. A folder holding the run of another kind (a judge run,
a comparison) is never written over by a job of a different kind.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import logging
import os
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO, ClassVar

import orjson

from tracegrade._io import atomic_file, loads_written, write_atomic
from tracegrade.errors import ConfigError, InputError, OutputError
from tracegrade.runs._status import JobStatus

__all__ = [
    "JSON_OPTIONS", "MANIFEST_NAME", "Manifest", "RunFolder", "amend_manifest", "claim_output", "dump_json",
    "read_manifest", "read_verified",
]

logger = logging.getLogger("tracegrade.runs")

MANIFEST_NAME = "manifest.json"
JOB_MARKER = ".tracegrade-job.json"
"""Kind and job id of a run being written (removed once the manifest is): a killed run can be resumed."""
MANIFEST_FORMAT = "tracegrade-run-folder/1"
LOCK_NAME = ".tracegrade.lock"
"""The lock file a job holds in its run folder while it writes there (removed when it finishes)."""

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
        self._lock: _FolderLock | None = _FolderLock.take(self._root, f"{kind} job {job_id}")
        try:
            _check_kind(path, kind)
            # the marker next: a run killed from here on can be told apart from another command's folder
            (path / JOB_MARKER).write_bytes(dump_json({"kind": kind, "job_id": job_id}))
            (path / MANIFEST_NAME).unlink(missing_ok=True)
        except OSError as exc:
            self.release()
            raise OutputError(f"{path}: cannot remove the previous manifest ({exc.strerror})") from None
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        """Let another job write into the folder (done by :meth:`finish`; a process that ends releases it too)."""
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()

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
        self.release()
        return target


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
        manifest = loads_written(target.read_bytes())
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


def _check_kind(path: Path, kind: str) -> None:
    """Refuse a folder that holds a complete run of another kind (a comparison written over a judge run...)."""
    try:
        manifest = loads_written((path / MANIFEST_NAME).read_bytes())
    except (OSError, ValueError):
        return  # no run there, or one that never finished: nothing complete to lose
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        return
    other = manifest.get("kind")
    if other is not None and other != kind:
        raise ConfigError(f"{path}: holds a {other} run (job {manifest.get('job_id')}); a {kind} output would "
                          "replace it; choose another folder", code="output_is_another_run")


class _FolderLock:
    """An exclusive ``flock`` on a run folder's lock file, naming its holder; one per folder in a process."""

    _held: ClassVar[dict[Path, _FolderLock]] = {}
    """The locks this process holds, by folder."""

    def __init__(self, file: Path, descriptor: int) -> None:
        self.file = file
        self.descriptor: int | None = descriptor

    @classmethod
    def take(cls, root: Path, what: str) -> _FolderLock | None:
        """Lock ``root`` for this process (a lock it already holds passes to the new job).

        Raises:
            ConfigError: ``output_locked``: another process holds it (its pid and job named).
        """
        if sys.platform == "win32":  # pragma: no cover - advisory locks are POSIX here
            return None
        held = cls._held.pop(root, None)
        if held is not None:
            held.descriptor, descriptor = None, held.descriptor
            if descriptor is not None:
                lock = cls(root / LOCK_NAME, descriptor)
                lock._write(what)
                cls._held[root] = lock
                return lock
        descriptor = _locked_descriptor(root / LOCK_NAME)
        if descriptor is None:
            return None
        lock = cls(root / LOCK_NAME, descriptor)
        lock._write(what)
        cls._held[root] = lock
        return lock

    def _write(self, what: str) -> None:
        assert self.descriptor is not None
        line = f"pid {os.getpid()}, {what}, since {datetime.now(UTC).isoformat(timespec='seconds')}\n"
        with contextlib.suppress(OSError):  # the holder's name is a courtesy; the lock itself is held
            os.ftruncate(self.descriptor, 0)
            os.pwrite(self.descriptor, line.encode(), 0)

    def release(self) -> None:
        """Remove the lock file, then unlock (a job waiting to open it sees it gone and opens a new one)."""
        descriptor, self.descriptor = self.descriptor, None
        if descriptor is None:
            return
        if self._held.get(self.file.parent) is self:
            del self._held[self.file.parent]
        with contextlib.suppress(OSError):
            self.file.unlink(missing_ok=True)
        os.close(descriptor)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.release()

    @classmethod
    def release_all(cls) -> None:
        """Release every lock still held (a job that ended on an error): no lock file naming a dead process."""
        for lock in list(cls._held.values()):
            lock.release()


atexit.register(_FolderLock.release_all)


def _locked_descriptor(file: Path) -> int | None:
    """The locked lock file; None where the file system has no locks (some network mounts): the job goes on."""
    import fcntl

    while True:
        try:
            # never through a link: the holder's line is written into the file
            descriptor = os.open(file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise OutputError(f"{file}: cannot create the run folder's lock ({exc.strerror or exc})") from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(descriptor)
            os.close(descriptor)
            raise ConfigError(f"{file.parent}: another tracegrade job is writing there ({holder}); wait for it to "
                              "finish or choose another folder", code="output_locked") from None
        except OSError as exc:  # ENOLCK, EOPNOTSUPP: a folder that cannot be locked is still written, unguarded
            os.close(descriptor)
            with contextlib.suppress(OSError):
                file.unlink()
            logger.warning("%s: cannot be locked (%s); another job writing there at the same time would not be "
                           "noticed", file.parent, exc.strerror or exc)
            return None
        try:
            current = os.stat(file).st_ino
        except FileNotFoundError:
            current = None
        if current == os.fstat(descriptor).st_ino:
            return descriptor
        os.close(descriptor)  # the holder finished and removed this file between our open and lock: again


def _holder(descriptor: int) -> str:
    try:
        text = os.pread(descriptor, 200, 0).decode(errors="replace").strip()
    except OSError:
        text = ""
    return text or "holder unknown"


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
    prefixes = (*(name[:-1] for name in own if name.endswith("*")), ".tracegrade-", LOCK_NAME)
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
        return loads_written(path.read_bytes())
    except (OSError, ValueError):
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
