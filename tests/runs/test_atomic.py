from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tracegrade.runs import MANIFEST_NAME, RunFolder, write_atomic
from tracegrade.runs._atomic import atomic_file


def test_a_file_is_written_whole_into_a_new_folder(tmp_path: Path) -> None:
    write_atomic(tmp_path / "a" / "b" / "out.json", b'{"x": 1}')
    assert (tmp_path / "a" / "b" / "out.json").read_bytes() == b'{"x": 1}'
    assert os.listdir(tmp_path / "a" / "b") == ["out.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    write_atomic(target, b"old\n")
    with pytest.raises(RuntimeError, match="broken"), atomic_file(target) as handle:
        handle.write(b"new, half written")
        raise RuntimeError("broken")
    assert target.read_bytes() == b"old\n" and os.listdir(tmp_path) == ["out.csv"]


def test_a_file_written_in_pieces_appears_only_at_the_end(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    with atomic_file(target, sync=False) as handle:
        handle.write(b"a,b\n")
        assert not target.exists()
        handle.write(b"1,2\n")
    assert target.read_bytes() == b"a,b\n1,2\n"


def test_without_a_mode_the_file_gets_the_umask_permissions(tmp_path: Path) -> None:
    umask = os.umask(0)
    os.umask(umask)
    write_atomic(tmp_path / "out.txt", b"x")
    assert stat.S_IMODE((tmp_path / "out.txt").stat().st_mode) == 0o666 & ~umask


def test_private_files_get_the_requested_mode(tmp_path: Path) -> None:
    write_atomic(tmp_path / "secret.json", b"{}", mode=0o600)
    assert stat.S_IMODE((tmp_path / "secret.json").stat().st_mode) == 0o600
    folder = RunFolder(tmp_path / "run", kind="test", job_id="j", mode=0o600)
    folder.write_text("r.json", "{}")
    assert stat.S_IMODE((tmp_path / "run/r.json").stat().st_mode) == 0o600
    assert MANIFEST_NAME not in os.listdir(tmp_path / "run")
