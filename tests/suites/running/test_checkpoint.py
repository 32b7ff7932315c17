from __future__ import annotations

import stat
from pathlib import Path

import orjson
import pytest

from tracegrade.errors import ConfigError, InputError
from tracegrade.suites.checking._records import Observation
from tracegrade.suites.running._checkpoint import Checkpoint

DONE = Observation({"v": 1}, None, 0.5, {"input_tokens": 3})
FAILED = Observation(None, "timeout", 2.0)


def written(path: Path) -> Path:
    store = Checkpoint(path, "run-1")
    store.append("s", "c0", 1, DONE)
    store.append("s", "c0", 2, FAILED)
    store.close()
    return path


def test_finished_attempts_are_read_back_by_suite_case_and_repetition(tmp_path: Path) -> None:
    path = written(tmp_path / "cp.jsonl")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert orjson.loads(path.read_bytes().splitlines()[0]) == {"run_key": "run-1"}
    again = Checkpoint(path, "run-1")
    assert again.done == {("s", "c0", 1): DONE, ("s", "c0", 2): FAILED}
    again.append("s", "c1", 1, DONE)
    again.close()
    assert len(Checkpoint(path, "run-1").done) == 3 and len(path.read_bytes().splitlines()) == 4


def test_a_cut_short_last_line_is_ignored(tmp_path: Path) -> None:
    path = written(tmp_path / "cp.jsonl")
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][:10])
    assert list(Checkpoint(path, "run-1").done) == [("s", "c0", 1)]


def test_a_broken_line_before_the_last_is_an_input_error(tmp_path: Path) -> None:
    path = written(tmp_path / "cp.jsonl")
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join([lines[0], b"{oops", lines[2]]) + b"\n")
    with pytest.raises(InputError, match=r"cp\.jsonl: line 2: not JSON"):
        Checkpoint(path, "run-1")
    path.write_bytes(b"\n".join([lines[0], b'{"suite": "s"}']) + b"\n")
    with pytest.raises(InputError, match="line 2: not a checkpoint record"):
        Checkpoint(path, "run-1")


def test_a_checkpoint_of_another_run_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path / "cp.jsonl")
    with pytest.raises(ConfigError, match="belongs to a different run"):
        Checkpoint(path, "run-2")


def test_a_torn_last_line_is_cut_off_before_appending(tmp_path: Path) -> None:
    """Issue 23 item 6a: the next record was appended to the torn line, so a second crash broke the file."""
    path = written(tmp_path / "cp.jsonl")
    path.write_bytes(path.read_bytes() + b'{"suite": "s", "id": "c9", "repe')  # the first crash
    store = Checkpoint(path, "run-1")
    store.append("s", "c1", 1, DONE)
    store.close()
    with path.open("ab") as handle:
        handle.write(b'{"suite": "s", "id": "c2"')  # the second crash, mid-line
    assert set(Checkpoint(path, "run-1").done) == {("s", "c0", 1), ("s", "c0", 2), ("s", "c1", 1)}


@pytest.mark.parametrize("first", [b"[1, 2]", b"null", b'"run_key"', b"hello", b'{"run_key": "run-1", "x": 1}'])
def test_a_file_that_is_not_a_checkpoint_is_refused_and_left_alone(tmp_path: Path, first: bytes) -> None:
    """Issue 23 items 6b and 6d: ``[1, 2]`` raised AttributeError; any other file was appended to, then deleted."""
    path = tmp_path / "notes.txt"
    path.write_bytes(first + b"\nmy own notes\n")
    with pytest.raises(ConfigError, match="is not a tracegrade checkpoint"):
        Checkpoint(path, "run-1")
    assert path.read_bytes() == first + b"\nmy own notes\n"


@pytest.mark.parametrize("content", [b"", b"one line without its end"])
def test_a_file_without_a_complete_first_line_was_never_a_checkpoint(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "cp.jsonl"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match="is not a tracegrade checkpoint"):
        Checkpoint(path, "run-1")
    assert path.read_bytes() == content


@pytest.mark.parametrize(("field", "value"), [
    ("elapsed_seconds", "fast"), ("elapsed_seconds", -1), ("elapsed_seconds", True), ("repetition", "1"),
    ("repetition", 0), ("result", [1]), ("error_code", 7), ("usage", "many"), ("id", None),
    ("result", None),  # no result and no error code
])
def test_a_record_of_the_wrong_types_is_refused_by_line(tmp_path: Path, field: str, value: object) -> None:
    """Issue 23 item 6c: ``"elapsed_seconds": "fast"`` re-ran every attempt, then crashed writing no report."""
    path = written(tmp_path / "cp.jsonl")
    lines = path.read_bytes().splitlines()
    record = orjson.loads(lines[1])
    record[field] = value
    path.write_bytes(b"\n".join([lines[0], orjson.dumps(record), lines[2]]) + b"\n")
    with pytest.raises(InputError, match=r"cp\.jsonl: line 2: not a checkpoint record"):
        Checkpoint(path, "run-1")


def test_a_new_checkpoint_never_replaces_a_file(tmp_path: Path) -> None:
    store = Checkpoint(tmp_path / "cp.jsonl", "run-1")
    store.close()
    assert [p.name for p in tmp_path.iterdir()] == ["cp.jsonl"]  # the temporary file is gone
    assert (tmp_path / "cp.jsonl").read_bytes() == b'{"run_key":"run-1"}\n'
