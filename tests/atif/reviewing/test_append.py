from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tracegrade.atif.agreement._labels import Label, read_labels
from tracegrade.atif.reviewing._append import Conflict, LabelsFile, retraction_of
from tracegrade.errors import InputError

REPO = Path(__file__).resolve().parents[3]


def line(step: int, **values: Any) -> dict[str, Any]:
    return {"node_id": "a.json", "step": step, "reviewer": "ann", **values}


def test_each_answer_is_one_line_read_back_strictly_with_its_line_number(tmp_path: Path) -> None:
    labels = LabelsFile(tmp_path / "labels.jsonl")
    assert labels.read() == ()
    first = labels.append(lambda standing: line(1, failed=True))
    second = labels.append(lambda standing: line(2, score=0.5, note="looks <b>fine</b>\n"))
    assert (first.line, second.line) == (1, 2)
    assert [label.step for label in read_labels(labels.path)] == [1, 2]
    assert labels.path.read_bytes().count(b"\n") == 2 and labels.path.read_bytes().endswith(b"\n")


def test_the_check_sees_what_the_file_holds_and_a_refusal_writes_nothing(tmp_path: Path) -> None:
    labels = LabelsFile(tmp_path / "labels.jsonl")
    labels.append(lambda standing: line(1, failed=True))
    seen: list[tuple[Label, ...]] = []

    def refuse(standing: tuple[Label, ...]) -> dict[str, Any]:
        seen.append(standing)
        raise Conflict("already answered")

    before = labels.path.read_bytes()
    with pytest.raises(Conflict):
        labels.append(refuse)
    assert [label.step for label in seen[0]] == [1] and labels.path.read_bytes() == before


def test_a_line_the_reader_would_refuse_is_never_written(tmp_path: Path) -> None:
    labels = LabelsFile(tmp_path / "labels.jsonl")
    labels.append(lambda standing: line(1, failed=True))
    before = labels.path.read_bytes()
    with pytest.raises(InputError, match=r"labels.jsonl:2: category"):
        labels.append(lambda standing: line(2, category="made_up"))
    with pytest.raises(InputError, match="retracts nothing"):
        labels.append(lambda standing: line(5, retract=True))
    assert labels.path.read_bytes() == before


def test_an_undo_is_a_retraction_line_and_the_file_is_only_ever_appended_to(tmp_path: Path) -> None:
    labels = LabelsFile(tmp_path / "labels.jsonl")
    labels.path.write_text('{"trajectory_id": "A", "step_id": 3, "segment": 1, "reviewer": "ann", "failed": true}')
    written = labels.read()[0]
    before = labels.path.read_bytes()
    labels.append(lambda standing: retraction_of(standing[-1]))
    assert labels.path.read_bytes().startswith(before + b"\n")  # the hand-written last line got its newline
    assert retraction_of(written) == {"trajectory_id": "A", "step_id": 3, "segment": 1, "reviewer": "ann",
                                      "retract": True}
    assert labels.read() == ()


def test_a_torn_last_line_stops_the_reader_and_the_writer(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"node_id": "a.json", "step": 1, "failed": true}\n{"node_id": "a.js')
    with pytest.raises(InputError, match=r"labels\.jsonl:2"):
        LabelsFile(path).read()
    with pytest.raises(InputError, match=r"labels\.jsonl:2"):
        LabelsFile(path).append(lambda standing: line(2, failed=True))


WRITER = """
import sys, time
from pathlib import Path
from tracegrade.atif.reviewing._append import Conflict, LabelsFile

start = Path(sys.argv[3])
while not start.exists():  # every writer begins at once
    time.sleep(0.001)
labels = LabelsFile(Path(sys.argv[1]))
for step in range(1, 31):
    def check(standing, step=step):
        if any(label.step == step for label in standing):
            raise Conflict("taken")
        time.sleep(0.005)  # a slow check: without the lock another writer would answer the same step meanwhile
        return {"node_id": "a.json", "step": step, "reviewer": "ann", "failed": True, "note": sys.argv[2] * 500}
    try:
        labels.append(check)
    except Conflict:
        pass
"""


def test_writers_racing_on_one_file_never_tear_a_line_or_answer_a_step_twice(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    env = {"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"}
    start = tmp_path / "go"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), letter, str(start)], env=env)
               for letter in "abcd"]
    time.sleep(1)
    start.touch()
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0, 0, 0]
    labels = read_labels(path)  # strict: a torn or interleaved line would fail here
    assert sorted(label.step for label in labels) == list(range(1, 31))
    assert all(label.note in {c * 500 for c in "abcd"} for label in labels)
