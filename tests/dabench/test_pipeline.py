"""The full eval-v2 pipeline on the example run: every artifact, reruns, modes, a baseline, interrupts.

What each analysis reports about the example is tested next to that analysis (tests/dabench/analyses,
tests/dabench/report), on the same evaluated example (tests/dabench/example.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.dabench.example import EXAMPLE, evaluate
from tracegrade.dabench import EvalOptions, PipelineOptions, Resampling, TaskReplay, run_pipeline
from tracegrade.runs import read_manifest


def test_every_artifact_of_the_seed_tree_is_in_the_manifest(example_out: Path) -> None:
    files = set(read_manifest(example_out)["files"])
    expected = {
        "task_metrics.csv",
        "trajectory.csv",
        "tool_calls.csv",
        "comprehensive_evaluation.csv",
        "artifact_reconciliation_report.txt",
        "artifact_reconciliation_report.json",
        "engineering_health_report.txt",
        "engineering_health_report.json",
        "auditor_validation_report.md",
        "report.json",
        "report.html",
        "paper_tables.md",
        "paper_tables.tex",
        "task_1/answer.csv",
        "task_2/answer.csv",
        "task_1/task_replay.json",
        "task_3/task_replay.json",
        "figures/score_distribution.png",
        "figures/correlation_matrix.png",
    }
    assert expected <= files
    assert "task_3/answer.csv" not in files  # no prediction and no answer in the trace


def snapshot(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("mode", ["standard", "research"])
def test_rerun_on_an_unchanged_run_rewrites_identical_files(tmp_path: Path, mode: str) -> None:
    evaluate(tmp_path, mode)
    first, manifest = snapshot(tmp_path), read_manifest(tmp_path)
    evaluate(tmp_path, mode)
    assert snapshot(tmp_path) == first
    again = read_manifest(tmp_path)
    assert again["files"] == manifest["files"] and again["metadata"] == manifest["metadata"]


def test_rerun_inside_the_run_folder_itself_is_stable(tmp_path: Path) -> None:
    run = tmp_path / "demo-run"
    shutil.copytree(EXAMPLE / "runs" / "demo-run", run)
    options = EvalOptions(run=str(run), data_root=EXAMPLE / "data")
    run_pipeline(options, PipelineOptions(figures=False))
    first = snapshot(run)
    run_pipeline(options, PipelineOptions(figures=False))
    assert snapshot(run) == first
    assert (run / "task_2" / "trace.json").is_file() and (run / "task_2" / "task_replay.json").is_file()


def test_standard_mode_leaves_out_verbose_and_research_sections(tmp_path: Path) -> None:
    document = orjson.loads((evaluate(tmp_path, "standard") / "report.json").read_bytes())
    ids = [s["id"] for s in document["sections"]]
    assert "analyst-team" not in ids and "metric-statistics" not in ids and "per-task" in ids
    assert not (tmp_path / "paper_tables.md").exists() and not (tmp_path / "figures").exists()


def test_baseline_adds_the_comparison_table(example_out: Path, tmp_path: Path) -> None:
    evaluate(tmp_path, "research", baseline=example_out)
    paper = (tmp_path / "paper_tables.md").read_text()
    assert "## Table 6: Comparison with the baseline" in paper
    assert "| final_score | 3 | 0.667 | 0.667 | +0.000 | [+0.000, +0.000] | — | — | — |" in paper


def test_interrupt_still_reports_the_finished_tasks(tmp_path: Path) -> None:
    def stop(_: int) -> None:
        raise KeyboardInterrupt

    options = EvalOptions(run="demo-run", runs_root=EXAMPLE / "runs", data_root=EXAMPLE / "data", output=tmp_path)
    with pytest.raises(KeyboardInterrupt):
        run_pipeline(options, PipelineOptions(figures=False), advance=stop)
    manifest = read_manifest(tmp_path)
    assert manifest["status"] == "interrupted" and "task_1/task_replay.json" in manifest["files"]
    assert "task_2/task_replay.json" not in manifest["files"]
    assert "(1 tasks)" in (tmp_path / "engineering_health_report.txt").read_text()


def test_a_broken_trace_costs_its_task_and_shows_in_health(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE / "runs" / "demo-run", run)
    (run / "task_2" / "trace.json").write_text("{not json")
    result = run_pipeline(EvalOptions(run=str(run), data_root=EXAMPLE / "data", output=tmp_path / "out"),
                          PipelineOptions(figures=False))
    assert result.health is not None and result.health.harness.validator_errors == 1
    assert result.health.harness.status == "DEGRADED"  # 5 + 2.5·2/3 + 2.5 = 9.17, but an unreadable part
    replay = TaskReplay.model_validate_json((tmp_path / "out" / "task_2" / "task_replay.json").read_bytes())
    assert [e["code"] for e in replay.task_errors] == ["invalid_trace"] and replay.trace_format == "missing"


def test_the_resampling_reaches_every_interval_and_says_so(example_out: Path, tmp_path: Path) -> None:
    resampling = Resampling(resamples=300, level=0.9, seed=2)
    evaluate(tmp_path, "research", baseline=example_out, resampling=resampling)
    paper = (tmp_path / "paper_tables.md").read_text()
    assert "90% CI: percentile bootstrap of the mean (300 resamples, seed 2)." in paper
    assert "| Metric | Pairs | Baseline | Proposed | Δ | 90% CI |" in paper
    report = orjson.loads((tmp_path / "report.json").read_bytes())
    comparison = next(s for s in report["sections"] if s["id"] == "comparison")
    assert "90% CI (paired bootstrap)" in [r["measure"] for r in comparison["rows"]]
    assert comparison["notes"][0].startswith("Bootstrap: 300 resamples of task pairs, seed 2;")
