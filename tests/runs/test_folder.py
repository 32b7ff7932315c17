from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest import MonkeyPatch

from tracegrade.errors import ConfigError, InputError, OutputError
from tracegrade.runs import JobStatus, RunFolder, _folder, claim_output, read_manifest, read_verified


def test_a_finished_folder_lists_every_file_with_its_hash(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run", kind="test", job_id="j-1")
    folder.write_json("a.json", {"b": 1, "a": [1.5, None]})
    folder.write_text("sub/notes.txt", "hello")
    folder.write_text("t.csv", "x,y\n1.0,a\n,b\n")
    folder.write_bytes("t.parquet", b"PAR1")
    folder.finish(JobStatus.COMPLETED, {"tasks": 2})

    manifest = read_manifest(tmp_path / "run")
    assert manifest["job_id"] == "j-1" and manifest["status"] == "completed" and manifest["metadata"] == {"tasks": 2}
    assert sorted(manifest["files"]) == ["a.json", "sub/notes.txt", "t.csv", "t.parquet"]
    assert (tmp_path / "run/t.csv").read_text() == "x,y\n1.0,a\n,b\n"
    assert (tmp_path / "run/a.json").read_text().startswith('{\n  "a"')


def test_a_file_written_in_pieces_is_listed_with_the_hash_of_the_whole(tmp_path: Path) -> None:
    import pyarrow as pa

    pieces = [b"a,b\n", memoryview(b"1,2\n"), pa.py_buffer(b"3,4\n" * 5000)]  # Arrow buffers are bytes-like
    folder = RunFolder(tmp_path, kind="test", job_id="j")
    folder.write_chunks("t.csv", iter(pieces))
    folder.finish(JobStatus.COMPLETED)

    whole = b"a,b\n1,2\n" + b"3,4\n" * 5000
    entry = read_manifest(tmp_path)["files"]["t.csv"]  # read_manifest also checks size and hash
    assert (tmp_path / "t.csv").read_bytes() == whole and entry["bytes"] == len(whole)


def test_a_piece_that_fails_leaves_neither_the_file_nor_a_temporary_one(tmp_path: Path) -> None:
    def pieces() -> Iterator[bytes]:
        yield b"header\n"
        raise RuntimeError("encoding failed")

    folder = RunFolder(tmp_path, kind="test", job_id="j")
    folder.write_text("t.csv", "earlier\n")
    with pytest.raises(RuntimeError, match="encoding failed"):
        folder.write_chunks("t.csv", pieces())
    # an unfinished run, still held
    assert sorted(os.listdir(tmp_path)) == [".tracegrade-job.json", ".tracegrade.lock", "t.csv"]
    assert (tmp_path / "t.csv").read_text() == "earlier\n"


def test_a_folder_without_manifest_is_incomplete(tmp_path: Path) -> None:
    first = RunFolder(tmp_path, kind="test", job_id="old")
    first.write_text("x.txt", "old")
    first.finish(JobStatus.COMPLETED)
    second = RunFolder(tmp_path, kind="test", job_id="new")  # a new job starts: the old manifest goes first
    second.write_text("x.txt", "new")
    with pytest.raises(InputError, match="not a complete run folder"):
        read_manifest(tmp_path)


def test_a_file_changed_after_the_manifest_is_detected(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path, kind="test", job_id="j")
    folder.write_text("x.txt", "one")
    folder.finish(JobStatus.FAILED)
    (tmp_path / "x.txt").write_text("two")
    with pytest.raises(InputError, match=r"differs from manifest\.json"):
        read_manifest(tmp_path)
    assert read_manifest(tmp_path, verify=False)["status"] == "failed"


def test_read_verified_gives_one_file_and_checks_them_all(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path, kind="test", job_id="j")
    folder.write_bytes("results.json", b"{}")
    folder.write_bytes("other.txt", b"kept")
    folder.finish(JobStatus.COMPLETED)
    manifest, data = read_verified(tmp_path, "results.json")
    assert (manifest["job_id"], data) == ("j", b"{}")
    assert read_verified(tmp_path, "absent.json")[1] is None
    (tmp_path / "other.txt").write_bytes(b"changed")
    with pytest.raises(InputError, match=r"other\.txt: differs from manifest\.json"):
        read_verified(tmp_path, "results.json")


def test_an_existing_file_as_output_is_refused_up_front(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("")
    with pytest.raises(OutputError, match="exists and is not a folder"):
        RunFolder(tmp_path / "out", kind="test", job_id="j")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to read-only folders")
def test_an_unwritable_folder_is_refused_up_front(tmp_path: Path) -> None:
    tmp_path.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(OutputError, match="not writable"):
            RunFolder(tmp_path / "out", kind="test", job_id="j")
    finally:
        tmp_path.chmod(stat.S_IRWXU)


def test_names_cannot_leave_the_folder(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path, kind="test", job_id="j")
    with pytest.raises(ValueError, match="stay inside"):
        folder.write_text("../escape.txt", "x")
    assert not (tmp_path.parent / "escape.txt").exists()


def test_a_sub_folder_linking_out_of_the_folder_is_refused_every_time(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    folder = RunFolder(tmp_path / "run", kind="test", job_id="j")
    folder.write_text("inside/a.txt", "a")
    (tmp_path / "run/sub").symlink_to(tmp_path / "outside")
    for _ in range(2):  # a refused folder is not remembered as checked
        with pytest.raises(OutputError, match="leads out of it"):
            folder.write_text("sub/x.txt", "x")
    folder.write_text("inside/b.txt", "b")
    assert os.listdir(tmp_path / "outside") == [] and sorted(folder.files) == ["inside/a.txt", "inside/b.txt"]


def test_files_are_flushed_once_before_the_manifest_not_one_by_one(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    events: list[str] = []
    monkeypatch.setattr(os, "fsync", lambda fd: events.append("fsync"))
    monkeypatch.setattr(_folder, "flush_filesystem", lambda path: events.append(f"flush {path.name}"))
    folder = RunFolder(tmp_path / "run", kind="test", job_id="j")
    for index in range(5):
        folder.write_text(f"task_{index}/answer.csv", "a\n1\n")
    assert events == []
    folder.finish(JobStatus.COMPLETED)
    assert events == ["flush run", "fsync"]  # then the manifest itself is synced
    assert read_manifest(tmp_path / "run")["files"].keys() == {f"task_{i}/answer.csv" for i in range(5)}


def test_flush_filesystem_runs_on_a_real_folder(tmp_path: Path) -> None:
    _folder.flush_filesystem(tmp_path)  # syncfs on Linux, os.sync elsewhere; must not raise


HOLDER = """
import sys, time
from pathlib import Path
from tracegrade.runs import RunFolder
folder = RunFolder(Path(sys.argv[1]), kind="atif-judge", job_id="first")
print("HOLDING", flush=True)
time.sleep(60)
"""


def test_a_second_job_into_a_folder_another_process_writes_is_refused_naming_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tracegrade.errors import ConfigError

    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "HOLDING"
        with pytest.raises(ConfigError) as refused:
            RunFolder(tmp_path, kind="atif-judge", job_id="second")
        assert refused.value.code == "output_locked" and refused.value.exit_code == 2
        assert f"pid {holder.pid}, atif-judge job first" in refused.value.message
    finally:
        holder.kill()
        holder.wait()
    folder = RunFolder(tmp_path, kind="atif-judge", job_id="second")  # the holder died: its lock went with it
    folder.finish(JobStatus.COMPLETED)
    assert not (tmp_path / ".tracegrade.lock").exists() and read_manifest(tmp_path)["job_id"] == "second"


def test_a_process_that_ends_on_an_error_leaves_no_lock_file_naming_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    ending = "from tracegrade._io import skip_final_collection\nskip_final_collection()\nraise SystemExit(2)"
    failing = HOLDER.replace('print("HOLDING", flush=True)\ntime.sleep(60)', ending)  # as the CLI ends
    ended = subprocess.run([sys.executable, "-c", failing, str(tmp_path)], capture_output=True, text=True)
    assert ended.returncode == 2, ended.stderr
    assert not (tmp_path / ".tracegrade.lock").exists()


def test_a_job_of_this_process_takes_over_its_own_lock_and_finishing_frees_the_folder(tmp_path: Path) -> None:
    first = RunFolder(tmp_path, kind="test", job_id="a")  # e.g. a failed job whose folder object is still alive
    second = RunFolder(tmp_path, kind="test", job_id="b")
    second.finish(JobStatus.COMPLETED)
    first.release()  # no longer the holder: nothing happens
    RunFolder(tmp_path, kind="test", job_id="c").finish(JobStatus.COMPLETED)


def test_a_folder_holding_a_run_of_another_kind_is_never_written_over(tmp_path: Path) -> None:
    from tracegrade.errors import ConfigError

    run = RunFolder(tmp_path, kind="atif-judge", job_id="baseline")
    run.write_text("evaluation_results.json", "{}")
    run.finish(JobStatus.COMPLETED)
    with pytest.raises(ConfigError) as refused:
        RunFolder(tmp_path, kind="atif-compare", job_id="a..b")
    assert refused.value.code == "output_is_another_run" and "holds a atif-judge run (job baseline)" in str(
        refused.value)
    assert read_manifest(tmp_path)["kind"] == "atif-judge"  # untouched, and the folder is free again
    RunFolder(tmp_path, kind="atif-judge", job_id="rerun").finish(JobStatus.COMPLETED)


def test_a_lock_file_that_is_a_link_is_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / ".tracegrade.lock").symlink_to(outside)
    with pytest.raises(OutputError, match="cannot create the run folder's lock"):
        RunFolder(tmp_path / "run", kind="test", job_id="j")
    assert outside.read_text() == "keep me"


def test_an_unfinished_run_is_claimed_by_its_own_job_and_named_to_others(tmp_path: Path) -> None:
    RunFolder(tmp_path, kind="atif-judge", job_id="j1").write_text("a.txt", "x")  # killed before its manifest
    claim_output(tmp_path, kind="atif-judge", job_id="j1")
    with pytest.raises(ConfigError, match="it holds the unfinished run of job j1"):
        claim_output(tmp_path, kind="atif-judge", job_id="j2")
    folder = RunFolder(tmp_path, kind="atif-judge", job_id="j1")
    folder.finish(JobStatus.COMPLETED)
    assert ".tracegrade-job.json" not in os.listdir(tmp_path)  # a finished folder holds only its files
    with pytest.raises(ConfigError, match="it holds the run of job j1"):
        claim_output(tmp_path, kind="atif-judge", job_id="j2")
