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


def test_closing_with_remove_deletes_the_file(tmp_path: Path) -> None:
    store = Checkpoint(tmp_path / "cp.jsonl", "run-1")
    store.close(remove=True)
    assert not (tmp_path / "cp.jsonl").exists()
