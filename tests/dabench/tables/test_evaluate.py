from __future__ import annotations

import csv
import gc
import shutil
from pathlib import Path

import orjson
import pytest

from tracegrade.dabench import EvalOptions, TaskRecord, evaluate_run
from tracegrade.dabench.metrics._registry import FAMILIES, TaskMetrics
from tracegrade.runs import RunFolder, read_manifest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "dabench"


def rows_of(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def tables_out(tmp_path: Path) -> Path:
    options = EvalOptions(run="demo-run", runs_root=EXAMPLE / "runs", data_root=EXAMPLE / "data", output=tmp_path)
    evaluate_run(options)
    return tmp_path


def test_example_run_fills_every_metric_family(tables_out: Path) -> None:
    rows = rows_of(tables_out / "task_metrics.csv")
    assert [r["task_id"] for r in rows] == ["task_1", "task_2", "task_3"]
    for family in FAMILIES:
        empty = [c for c in family.columns if c != "task_errors" and all(r[c] == "" for r in rows)]
        assert not empty, (family.name, empty)
    assert [r["outcome_status"] for r in rows] == ["correct", "correct", "failed"]


def test_example_writes_every_table_in_csv_and_parquet(tables_out: Path) -> None:
    manifest = read_manifest(tables_out)
    names = {
        f"{t}.{ext}"
        for t in ("task_metrics", "trajectory", "tool_calls", "comprehensive_evaluation")
        for ext in ("csv", "parquet")
    }
    assert set(manifest["files"]) == names
    trajectory = rows_of(tables_out / "trajectory.csv")
    tools = rows_of(tables_out / "tool_calls.csv")
    metrics = rows_of(tables_out / "task_metrics.csv")
    assert len(trajectory) == sum(int(r["trajectory_length"]) for r in metrics)
    assert len(tools) == sum(int(r["tool_calls"]) for r in metrics)
    assert trajectory[0]["elapsed_seconds"] == "1.0" and trajectory[1]["elapsed_seconds"] == "2.0"


def test_malformed_task_fails_only_itself(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE / "runs" / "demo-run", run)
    (run / "task_1" / "trace.json").write_text("{not json")
    (run / "task_2" / "prediction.csv").write_bytes(b"a,b\n1\n")
    evaluate_run(EvalOptions(run=str(run), data_root=EXAMPLE / "data", output=tmp_path / "out"))
    rows = {r["task_id"]: r for r in rows_of(tmp_path / "out" / "task_metrics.csv")}
    assert rows["task_1"]["task_errors"] == "invalid_trace"
    assert rows["task_1"]["trace_format"] == "missing" and rows["task_1"]["final_score"] == "1.0"
    assert rows["task_2"]["task_errors"] == "invalid_prediction_csv" and rows["task_2"]["final_score"] == "0.0"
    assert rows["task_2"]["answer_error_code"] == "invalid_prediction_csv"
    assert rows["task_3"]["task_errors"] == ""
    errors = read_manifest(tmp_path / "out")["metadata"]["task_errors"]
    assert {e["task_id"]: e["code"] for e in errors} == {"task_1": "invalid_trace", "task_2": "invalid_prediction_csv"}
    assert "line 2" in errors[1]["message"]


def test_interrupt_writes_the_finished_tasks(tmp_path: Path) -> None:
    def stop(_: int) -> None:
        raise KeyboardInterrupt

    options = EvalOptions(run=str(EXAMPLE / "runs" / "demo-run"), output=tmp_path)
    with pytest.raises(KeyboardInterrupt):
        evaluate_run(options, advance=stop)
    assert read_manifest(tmp_path)["status"] == "interrupted"
    assert [r["task_id"] for r in rows_of(tmp_path / "task_metrics.csv")] == ["task_1"]


def test_an_interrupt_while_a_task_is_added_waits_until_every_table_has_it(tmp_path: Path) -> None:
    """Ctrl-C while the first task goes into the tables (here: from its own sink) keeps the task whole."""
    import os
    import signal

    def interrupting_sink(record: TaskRecord, metrics: TaskMetrics, folder: RunFolder) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # delivered at once unless adding the task holds it back
        folder.write_text(f"{record.task_id}.txt", "")  # the task's own files, after the interrupt

    options = EvalOptions(run=str(EXAMPLE / "runs" / "demo-run"), data_root=EXAMPLE / "data", output=tmp_path)
    with pytest.raises(KeyboardInterrupt):
        evaluate_run(options, on_task=interrupting_sink)
    assert read_manifest(tmp_path)["status"] == "interrupted"
    tasks = {r["task_id"] for r in rows_of(tmp_path / "task_metrics.csv")}
    assert tasks == {"task_1"} and (tmp_path / "task_1.txt").exists()  # the task's own files are written too
    assert {r["task_id"] for r in rows_of(tmp_path / "trajectory.csv")} == tasks
    assert {r["task_id"] for r in rows_of(tmp_path / "tool_calls.csv")} <= tasks


def test_null_reasons_are_recorded_once_per_reason(tables_out: Path) -> None:
    reasons = read_manifest(tables_out)["metadata"]["null_reasons"]
    assert reasons["reproducibility_score"] == {"no vote rounds": 2}
    assert reasons["initial_answer_correct"] == {"needs gold and an answer step in the trace": 1}


def test_task_sink_sees_every_record_and_can_write_into_the_run_folder(tmp_path: Path) -> None:
    seen: list[str] = []

    def sink(record: TaskRecord, metrics: TaskMetrics, folder: RunFolder) -> None:
        seen.append(f"{record.task_id}:{metrics.values['outcome_status']}")
        folder.write_text(f"{record.task_id}/note.txt", record.trace_format.value)

    options = EvalOptions(run="demo-run", runs_root=EXAMPLE / "runs", data_root=EXAMPLE / "data", output=tmp_path)
    evaluate_run(options, on_task=sink)
    assert seen == ["task_1:correct", "task_2:correct", "task_3:failed"]
    assert "task_2/note.txt" in read_manifest(tmp_path)["files"]


def test_summary_entries_that_would_leave_the_run_folder_are_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE / "runs" / "demo-run", run)
    summary = orjson.loads((run / "summary.json").read_bytes())
    summary["tasks"][0]["task_id"] = "../../outside"
    (run / "summary.json").write_bytes(orjson.dumps(summary))
    evaluate_run(EvalOptions(run=str(run), output=tmp_path / "out"))
    assert [r["task_id"] for r in rows_of(tmp_path / "out" / "task_metrics.csv")] == ["task_2", "task_3", "task_1"]
    errors = read_manifest(tmp_path / "out")["metadata"]["task_errors"]
    assert errors[0]["code"] == "invalid_summary_entry" and "tasks[0]" in errors[0]["message"]


def test_a_run_leaves_the_collector_to_the_command(tmp_path: Path) -> None:
    """The collector's policy is applied once, at the CLI edge (tracegrade._io.command_collector)."""
    before = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []
    options = EvalOptions(run="demo-run", runs_root=EXAMPLE / "runs", data_root=EXAMPLE / "data", output=tmp_path)
    evaluate_run(options, on_task=lambda record, metrics, folder: seen.append(gc.get_threshold()))
    assert seen == [before] * 3 and gc.get_threshold() == before
