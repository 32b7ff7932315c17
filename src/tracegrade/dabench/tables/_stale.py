"""``task_<id>/`` folders an earlier eval-v2 run left in the output folder that this run does not own.

A task folder the new run does not list is removed when every file in it is one the earlier run's
``manifest.json`` (kind ``dabench-eval-v2``) records, with the recorded SHA-256: those files were
written by tracegrade and are replaced by this run. Anything else (no earlier manifest, a file it does
not record or that changed since, a link) is refused before anything is written: tracegrade never
deletes what it did not create.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from tracegrade.errors import InputError, OutputError
from tracegrade.runs import MANIFEST_NAME, read_manifest

__all__ = ["remove_stale_tasks"]

_TASK_DIR = re.compile(r"task_\d+")


def remove_stale_tasks(output: Path, run_dir: Path, tasks: Collection[str], kind: str) -> list[str]:
    """Remove the ``task_<id>/`` folders of an earlier run that ``tasks`` does not list; return their names.

    Raises:
        OutputError: a stale task folder holds something no earlier run of ``kind`` recorded writing.
    """
    if not output.is_dir() or output.resolve() == run_dir.resolve():
        return []  # the run folder's own task folders are its inputs, and every one of them is evaluated
    stale = sorted(p.name for p in output.iterdir()
                   if _TASK_DIR.fullmatch(p.name) and p.name not in tasks and (p.is_dir() or p.is_symlink()))
    if not stale:
        return []
    recorded = _recorded_files(output, kind)
    foreign = [name for name in stale if not _only_recorded(output, name, recorded)]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise OutputError(
            f"{output / foreign[0]}{more}: task folders this run does not list, holding files no earlier eval-v2 "
            f"run recorded in {MANIFEST_NAME}; remove them or choose another --output (nothing was written)"
        )
    for name in stale:
        _remove(output / name)
    return stale


def _recorded_files(output: Path, kind: str) -> Mapping[str, Any]:
    try:
        manifest = read_manifest(output, verify=False)
    except InputError:
        return {}
    files = manifest.get("files")
    return files if manifest.get("kind") == kind and isinstance(files, dict) else {}


def _only_recorded(output: Path, name: str, recorded: Mapping[str, Any]) -> bool:
    """True when the folder holds only regular files that ``recorded`` lists with their current hash."""
    if (output / name).is_symlink():
        return False
    for root, folders, files in os.walk(output / name):
        base = Path(root)
        if base.is_symlink() or any((base / f).is_symlink() for f in folders):
            return False
        for file in files:
            path = base / file
            entry = recorded.get(path.relative_to(output).as_posix())
            if path.is_symlink() or not path.is_file() or not isinstance(entry, dict):
                return False
            if hashlib.sha256(path.read_bytes()).hexdigest() != entry.get("sha256"):
                return False
    return True


def _remove(folder: Path) -> None:
    try:
        for root, folders, files in os.walk(folder, topdown=False):
            for file in files:
                os.unlink(os.path.join(root, file))
            for sub in folders:
                os.rmdir(os.path.join(root, sub))
        os.rmdir(folder)
    except OSError as exc:
        raise OutputError(f"{folder}: cannot remove this stale task folder ({exc.strerror or exc})") from None
