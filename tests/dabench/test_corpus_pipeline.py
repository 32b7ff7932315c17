"""The real participant runs (read in place) through the whole eval-v2 pipeline in every mode."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.dabench.corpus_gold import RUNS, write_dataset
from tracegrade.dabench import EvalOptions, Mode, PipelineOptions, Resampling, TaskReplay, run_pipeline
from tracegrade.runs import read_manifest


def named_but_missing(run: Path) -> set[tuple[str, str]]:
    """(task, check) of every trace and prediction summary.json names that the run folder lacks."""
    found = set()
    for task in orjson.loads((run / "summary.json").read_bytes())["tasks"]:
        folder = run / task["task_id"]
        traces = list(folder.glob("trace*.json")) if folder.is_dir() else []
        if task.get("trace_path") is not None and not traces:
            found.add((task["task_id"], "summary_trace_present"))
        if task.get("prediction_csv_path") is not None and not (folder / "prediction.csv").is_file():
            found.add((task["task_id"], "summary_prediction_present"))
    return found


@pytest.mark.parametrize("mode", ["standard", "verbose", "research"])
@pytest.mark.parametrize("run", sorted(RUNS))
def test_participant_run_goes_through_the_full_pipeline(
    shared_corpus: Path, tmp_path: Path, run: str, mode: str
) -> None:
    data = write_dataset(tmp_path / "data")
    options = EvalOptions(run=str(shared_corpus / RUNS[run]), data_root=data, output=tmp_path / "out")
    result = run_pipeline(options, PipelineOptions(mode=Mode(mode), resampling=Resampling(resamples=500)))
    manifest = read_manifest(tmp_path / "out")
    assert manifest["status"] == "completed" and manifest["metadata"]["report"]["mode"] == mode
    # these copies keep a few task folders of each run: every other task summary.json names has no trace
    missing = named_but_missing(shared_corpus / RUNS[run])
    assert missing, "the corpus copies lack most traces"
    rec = result.reconciliation
    assert rec is not None
    assert {(f.task_id, f.check) for f in rec.findings if f.severity == "error"} == missing
    assert result.health is not None and result.health.harness.status != "HEALTHY"
    counts = result.health.evaluated_from
    assert counts["named_traces_missing"] == sum(1 for _, check in missing if check == "summary_trace_present")
    replays = sorted((tmp_path / "out").glob("task_*/task_replay.json"))
    assert len(replays) == 50
    for path in replays:
        TaskReplay.model_validate_json(path.read_bytes())
    report = orjson.loads((tmp_path / "out" / "report.json").read_bytes())
    sections = {s["id"]: s for s in report["sections"]}
    assert sections["per-task"]["empty"] is None and sections["difficulty"]["empty"] is None
    # these official-format traces have no coordinator: said in one line, not printed as zeros
    assert sections["coordinator"]["empty"] == "no coordinator data in these traces"
    assert ("metric-statistics" in sections) == (mode == "research")
    assert (tmp_path / "out" / "paper_tables.md").exists() == (mode == "research")


def test_failed_participant_tasks_carry_attribution_with_evidence(shared_corpus: Path, tmp_path: Path) -> None:
    options = EvalOptions(run=str(shared_corpus / RUNS["zhenyuluok"]), output=tmp_path)
    run_pipeline(options, PipelineOptions(figures=False))
    replay = TaskReplay.model_validate_json((tmp_path / "task_11" / "task_replay.json").read_bytes())
    assert replay.trace_format == "failure_payload"
    assert replay.failure_attribution is not None and replay.failure_attribution.root_cause == "timeout"
    assert replay.failure_attribution.evidence_summary == "no step evidence (the trace has no steps)"
