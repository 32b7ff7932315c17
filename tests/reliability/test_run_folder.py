"""Item 7 of issue 14 and output path escapes: a reader can always tell a complete run folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracegrade.errors import InputError, OutputError
from tracegrade.runs import JobStatus, RunFolder, read_manifest

WRITER = """
import os, sys
from pathlib import Path
from tracegrade.runs import JobStatus, RunFolder
folder = RunFolder(Path(sys.argv[1]), kind="test", job_id=sys.argv[2])
for i in range(int(sys.argv[3])):
    folder.write_bytes(f"part_{i}.bin", sys.argv[2].encode() * 50_000)
    if i == int(sys.argv[4]):
        os.kill(os.getpid(), 9)
folder.finish(JobStatus.COMPLETED)
"""


def write_job(path: Path, job_id: str, files: int, die_after: int = -1) -> int:
    return subprocess.run([sys.executable, "-c", WRITER, str(path), job_id, str(files), str(die_after)],
                          check=False).returncode


def test_a_job_killed_mid_write_over_another_jobs_folder_is_refused(tmp_path: Path) -> None:
    assert write_job(tmp_path, "job-a", 6) == 0
    assert read_manifest(tmp_path)["job_id"] == "job-a"
    assert write_job(tmp_path, "job-b", 6, die_after=2) == -9
    # files of both jobs lie side by side, each intact...
    assert (tmp_path / "part_0.bin").read_bytes()[:5] == b"job-b"
    assert (tmp_path / "part_5.bin").read_bytes()[:5] == b"job-a"
    with pytest.raises(InputError) as caught:  # ...and the folder is not taken for a complete one
        read_manifest(tmp_path)
    assert caught.value.code == "incomplete_run"


def test_rerunning_after_the_kill_completes_the_folder(tmp_path: Path) -> None:
    assert write_job(tmp_path, "job-b", 6, die_after=2) == -9
    assert write_job(tmp_path, "job-b", 6) == 0
    manifest = read_manifest(tmp_path)
    assert (manifest["job_id"], len(manifest["files"])) == ("job-b", 6)


def test_a_subfolder_linked_out_of_the_run_folder_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "task_1").symlink_to(outside)
    folder = RunFolder(tmp_path / "run", kind="test", job_id="j")
    with pytest.raises(OutputError):
        folder.write_text("task_1/answer.csv", "x")
    assert list(outside.iterdir()) == []


def test_a_file_name_that_is_a_link_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "summary.json").symlink_to(victim)
    RunFolder(tmp_path / "run", kind="test", job_id="j").write_text("summary.json", "{}")
    assert victim.read_text() == "keep me" and not (tmp_path / "run" / "summary.json").is_symlink()


names = st.lists(st.sampled_from(["..", ".", "a", "b", "/", "~", "\\", "..."]), min_size=1, max_size=6).map("".join)


@settings(max_examples=300, deadline=None)
@given(name=names)
def test_no_file_name_writes_outside_the_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> None:
    base = tmp_path_factory.mktemp("names")
    folder = RunFolder(base / "run", kind="test", job_id="j")
    try:
        written = folder.write_text(name, "x")
    except (ValueError, OutputError):
        return
    assert os.path.realpath(written).startswith(os.path.realpath(base / "run") + os.sep)
    assert read_manifest(base / "run") if folder.finish(JobStatus.COMPLETED) else True
