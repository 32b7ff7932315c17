from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tracegrade.dabench import read_summary, resolve_run
from tracegrade.dabench.reading._records import AnswerTable, TraceFormat
from tracegrade.dabench.reading._runs import SummaryEntry, read_task, read_task_input
from tracegrade.errors import ConfigError, InputError

ANSWER = {"columns": ["n"], "rows": [["1"]]}


def trace(answer: dict[str, object] | None = None) -> bytes:
    steps = [{"step_index": 1, "action": "answer", "action_input": answer or ANSWER, "observation": {"ok": True}}]
    return orjson.dumps({"task_id": "task_1", "steps": steps, "answer": answer or ANSWER})


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_a_run_is_a_path_or_an_id_under_the_runs_root(tmp_path: Path) -> None:
    (tmp_path / "runs" / "r1").mkdir(parents=True)
    assert resolve_run(str(tmp_path / "runs" / "r1"), Path("elsewhere")) == tmp_path / "runs" / "r1"
    assert resolve_run("r1", tmp_path / "runs") == tmp_path / "runs" / "r1"
    with pytest.raises(ConfigError, match="run 'r2': no such folder") as caught:
        resolve_run("r2", tmp_path / "runs")
    assert caught.value.code == "run_not_found"


def test_without_summary_the_task_folders_are_listed_in_numeric_order(tmp_path: Path) -> None:
    for name in ("task_10", "task_2", "task_1", "notes"):
        (tmp_path / name).mkdir()
    summary = read_summary(tmp_path)
    assert [e.task_id for e in summary.entries] == ["task_1", "task_2", "task_10"]
    assert (summary.run_id, summary.has_summary, summary.entries[0].succeeded) == (tmp_path.name, False, None)


def test_summary_order_then_unlisted_folders_and_unusable_entries_named(tmp_path: Path) -> None:
    for name in ("task_1", "task_2", "task_3"):
        (tmp_path / name).mkdir()
    tasks = [
        {"task_id": "task_3", "succeeded": False, "failure_reason": "timeout", "prediction_csv_path": None},
        {"task_id": "../task_1"},
        {"name": "task_2"},
        {"task_id": "task_2", "succeeded": "yes", "prediction_csv_path": "/far/away.csv"},
    ]
    write(tmp_path / "summary.json", orjson.dumps({"run_id": "r", "tasks": tasks, "extra": 1}))
    summary = read_summary(tmp_path)
    assert summary.run_id == "r" and summary.unlisted_tasks == ("task_1",)
    assert summary.entries == (
        SummaryEntry("task_3", False, "timeout", False),
        SummaryEntry("task_2", None, None, True),  # a non-boolean succeeded is unknown, not true
        SummaryEntry("task_1", None, None, None, False),  # an unlisted folder: summary.json names no file of it
    )
    assert [index for index, _ in summary.entry_errors] == [1, 2]
    assert "tasks[1] has no usable task_id" in summary.entry_errors[0][1]


@pytest.mark.parametrize(("data", "message"), [(b"{", "invalid JSON"), (b'{"tasks": {}}', "a 'tasks' list")])
def test_an_unusable_summary_names_the_file(tmp_path: Path, data: bytes, message: str) -> None:
    path = write(tmp_path / "summary.json", data)
    with pytest.raises(InputError, match=message) as caught:
        read_summary(tmp_path)
    assert caught.value.code == "invalid_summary" and str(path) in caught.value.message


def test_task_input_reads_metadata_context_kinds_and_gold(tmp_path: Path) -> None:
    meta = {"task_id": "task_1", "question": "q", "difficulty": "easy"}
    write(tmp_path / "input/task_1/task.json", orjson.dumps(meta))
    for name in ("a.csv", "b.CSV", "sub/c.json", "knowledge.md", "README"):
        write(tmp_path / "input/task_1/context" / name, "x\n")
    write(tmp_path / "output/task_1/gold.csv", "n\n1\n")
    task = read_task_input("task_1", tmp_path)
    assert (task.difficulty, task.question) == ("easy", "q")
    assert (task.source_kinds, task.source_count) == (("csv", "file", "json"), 4)  # knowledge.md is not a source
    assert task.gold == AnswerTable(("n",), (("1",),)) and task.gold_reason is None


def test_task_input_says_why_there_is_no_gold(tmp_path: Path) -> None:
    assert read_task_input("task_1", None).gold_reason == "no --data-root given"
    task = read_task_input("task_1", tmp_path)
    assert (task.gold, task.gold_reason, task.source_kinds) == (None, "no gold.csv for task_1", None)
    write(tmp_path / "output/task_1/gold.csv", "a,b\n1\n")
    assert "line 2 has 1 fields" in (read_task_input("task_1", tmp_path).gold_reason or "")


def test_a_task_json_of_another_task_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "input/task_1/task.json", orjson.dumps({"task_id": "task_2", "question": "q"}))
    with pytest.raises(InputError, match="differs from its folder") as caught:
        read_task_input("task_1", tmp_path)
    assert caught.value.code == "invalid_task_json"


def test_read_task_keeps_the_task_when_its_prediction_is_unreadable(tmp_path: Path) -> None:
    write(tmp_path / "task_1/trace.json", trace())
    write(tmp_path / "task_1/prediction.csv", b"")
    record = read_task(tmp_path, "r", SummaryEntry("task_1", True, None, True), None)
    assert record.trace_format is TraceFormat.REACT and record.trace_file == "trace.json"
    assert (record.prediction, record.prediction_error) == (None, "invalid_prediction_csv")
    assert [code for code, _ in record.errors] == ["invalid_prediction_csv"]


def test_vote_rounds_are_kept_and_the_newest_stands_in_for_a_missing_trace(tmp_path: Path) -> None:
    second = {"columns": ["n"], "rows": [["2"]]}
    write(tmp_path / "task_1/trace.json", trace())
    write(tmp_path / "task_1/trace_r2.json", trace(second))
    record = read_task(tmp_path, "r", SummaryEntry("task_1", None, None, None), None)
    assert record.vote_answers == (AnswerTable(("n",), (("2",),)),)
    (tmp_path / "task_1/trace.json").unlink()
    write(tmp_path / "task_1/trace_r10.json", trace({"columns": ["n"], "rows": [["10"]]}))
    alone = read_task(tmp_path, "r", SummaryEntry("task_1", None, None, None), None)
    assert alone.trace_file == "trace_r10.json" and alone.vote_answers == ()


def test_a_missing_task_folder_is_a_task_without_a_trace(tmp_path: Path) -> None:
    record = read_task(tmp_path, "r", SummaryEntry("task_9", False, "crashed", None), None)
    assert (record.trace_format, record.steps, record.succeeded, record.failure_reason) == (
        TraceFormat.MISSING,
        (),
        False,
        "crashed",
    )
    assert not record.has_steps and record.errors == ()
