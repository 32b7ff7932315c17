from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tracegrade._io import atomic_file, replace_path, write_atomic
from tracegrade.runs import MANIFEST_NAME, RunFolder


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


def test_an_exclusive_write_never_replaces_a_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_bytes(b"kept")
    with pytest.raises(FileExistsError):
        write_atomic(target, b"new", exclusive=True)
    assert target.read_bytes() == b"kept" and os.listdir(tmp_path) == ["report.json"]


def test_an_exclusive_write_in_pieces_is_private_and_whole(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_atomic(target, iter([b"a", memoryview(b"b")]), mode=0o600, exclusive=True)
    assert target.read_bytes() == b"ab" and stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_failure_while_pieces_are_made_leaves_no_file(tmp_path: Path) -> None:
    def pieces() -> Iterator[bytes]:
        yield b"half"
        raise RuntimeError("broken")

    with pytest.raises(RuntimeError, match="broken"):
        write_atomic(tmp_path / "out.json", pieces(), exclusive=True)
    assert os.listdir(tmp_path) == []


def test_a_finished_folder_replaces_its_target_in_one_step(tmp_path: Path) -> None:
    (tmp_path / "staging").mkdir()
    (tmp_path / "staging" / "a.json").write_bytes(b"{}")
    replace_path(tmp_path / "staging", tmp_path / "target")
    assert os.listdir(tmp_path) == ["target"] and (tmp_path / "target" / "a.json").exists()
