"""The full eval-v2 pipeline on the example run: every number the report prints, computed by hand.

The example (examples/dabench/README.md): task_1 easy, right first time; task_2 hard, replanned and
retried, then right; task_3 medium, timed out without a prediction. Hand values below come from
its traces (step durations, tokens, decisions) and gold tables.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracegrade.dabench import EvalOptions, Mode, PipelineOptions, TaskReplay, run_pipeline
from tracegrade.runs import read_manifest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dabench"


def evaluate(out: Path, mode: str = "research", **extra: Any) -> Path:
    options = EvalOptions(run="demo-run", runs_root=EXAMPLE / "runs", data_root=EXAMPLE / "data", output=out)
    run_pipeline(options, PipelineOptions(mode=Mode(mode), **extra))
    return out


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return evaluate(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="module")
def report(out: Path) -> dict[str, Any]:
    document: dict[str, Any] = orjson.loads((out / "report.json").read_bytes())
    return document


def rows(report: dict[str, Any], section: str) -> list[dict[str, Any]]:
    found = [s for s in report["sections"] if s["id"] == section]
    assert len(found) == 1, section
    assert found[0]["empty"] is None, found[0]["empty"]
    return found[0]["rows"]  # type: ignore[no-any-return]


def raw(report: dict[str, Any], section: str) -> dict[str, Any]:
    return {r["measure"]: r["raw"] for r in rows(report, section)}


def test_health_panels(report: dict[str, Any]) -> None:
    assert (report["harness_score"], report["harness_status"], report["run_quality_status"]) == (
        10.0,
        "HEALTHY",
        "DEGRADED",
    )
    assert raw(report, "harness-health") == {
        "Reconciliation pass rate": 1.0,
        "Reconciliation errors": 0,
        "Validator errors": 0,
        "Attribution coverage": 1.0,
    }
    quality = raw(report, "run-quality")
    assert quality["Answer accuracy"] == pytest.approx(2 / 3) and quality["Execution success"] == pytest.approx(2 / 3)


def test_per_task_table(report: dict[str, Any]) -> None:
    got = [
        (r["task_id"], r["exec"], r["final_score"], r["outcome"], r["time"], r["steps"], r["tokens"], r["root_cause"])
        for r in rows(report, "per-task")
    ]
    assert got == [
        ("task_1", "✓", 1.0, "correct", 14.0, 10, 2500, ""),
        ("task_2", "✓", 1.0, "correct", 41.5, 18, 5000, ""),
        ("task_3", "✗", 0.0, "failed", 600.0, 8, 2000, "timeout"),
    ]


def test_overall_and_difficulty(report: dict[str, Any]) -> None:
    overall = raw(report, "overall")
    assert overall["Tasks"] == 3 and overall["Partial answers"] == 0 and overall["Total tokens"] == 9500
    assert overall["Execution success"] == pytest.approx(2 / 3)
    assert overall["Answer accuracy (≥ 0.8)"] == pytest.approx(2 / 3)
    assert overall["Mean final score"] == pytest.approx(2 / 3) and overall["Mean runtime"] == pytest.approx(218.5)
    table = {r["difficulty"]: r for r in rows(report, "difficulty")}
    assert list(table) == ["easy", "medium", "hard", "all"]
    assert table["easy"] == {
        "difficulty": "easy",
        "tasks": 1,
        "exec": 1.0,
        "accuracy": 1.0,
        "mean_score": 1.0,
        "runtime": 14.0,
        "tokens": 2500.0,
    }
    assert (table["medium"]["exec"], table["medium"]["accuracy"], table["medium"]["runtime"]) == (0.0, 0.0, 600.0)
    assert table["all"]["tokens"] == pytest.approx(9500 / 3) and table["all"]["accuracy"] == pytest.approx(2 / 3)


def test_mas_coordinator_and_specialists(report: dict[str, Any]) -> None:
    mas = raw(report, "mas-effectiveness")
    assert mas == {
        "Tasks with both answers": 2,
        "First attempt accuracy": 0.5,
        "Final accuracy": 1.0,
        "Recovered tasks": 1,
        "Lost after first attempt": 0,
        "MAS recovery gain": 0.5,
    }
    assert rows(report, "coordinator") == [
        {"kind": "Replans", "tasks": 2, "requests": 2, "successful": 1, "rate": 0.5},
        {"kind": "Retries", "tasks": 1, "requests": 1, "successful": 1, "rate": 1.0},
    ]
    specialists = {r["agent"]: (r["used"], r["with"], r["without"], r["impact"]) for r in rows(report, "specialists")}
    assert specialists["Schema"] == (3, pytest.approx(2 / 3), None, None)
    assert specialists["Domain"] == (1, 1.0, 0.5, 0.5) and specialists["Document"] == (1, 1.0, 0.5, 0.5)


def test_failure_analysis_aat_and_timeline(report: dict[str, Any]) -> None:
    assert rows(report, "failure-categories") == [{"name": "TOOL_EXECUTION_FAILURE", "tasks": 1, "share": 1.0}]
    assert rows(report, "failure-stages") == [{"name": "EXECUTE", "tasks": 1, "share": 1.0}]
    assert rows(report, "outcome-errors") == [{"name": "missing_prediction", "tasks": 1, "share": 1.0}]
    aat = raw(report, "aat")
    assert aat["Final decision APPROVE_FINAL"] == 2 and aat["Final decision REPLAN"] == 1
    assert aat["Mean coordinator calls"] == 3.0 and aat["Mean specialist participation"] == pytest.approx(5 / 9)
    assert aat["AAT verification passed"] == pytest.approx(2 / 3) and aat["Critic verification passed"] == 1.0
    assert aat["Critic verification triggered"] == pytest.approx(1 / 3)
    assert rows(report, "verification-timeline") == [
        {"approval": "Approved", "correct": 2, "incorrect": 0, "unknown": 0, "total": 2},
        {"approval": "Not approved", "correct": 0, "incorrect": 1, "unknown": 0, "total": 1},
    ]


def test_phase_timing_and_reconciliation_view(report: dict[str, Any]) -> None:
    table = {r["stage"]: r for r in rows(report, "phase-timing")}
    assert table["UNDERSTAND"]["total_time"] == 11.0 and table["UNDERSTAND"]["share"] == pytest.approx(11 / 37)
    assert table["VERIFY"]["tokens"] == pytest.approx(5500 / 3) and table["SUMMARIZE"]["calls"] == 1.0
    notes = next(s for s in report["sections"] if s["id"] == "phase-timing")["notes"]
    assert notes == [
        "Reconciliation: wall clock 655.5s, step durations 37.0s (5.6%); unaccounted overhead 618.5s "
        "(framework, I/O, queuing)."
    ]
    checks = {r["check"]: r for r in rows(report, "reconciliation")}
    assert checks["time_accounting"]["warning"] == 1 and checks["replan_count_consistent"]["warning"] == 1
    assert checks["retry_count_consistent"]["warning"] == 1 and sum(c["error"] for c in checks.values()) == 0


def test_analyst_team(report: dict[str, Any]) -> None:
    team = raw(report, "analyst-team")
    assert team["Tasks with verdicts"] == 3 and team["Mean agreement score"] == 1.0
    assert team["Meaningful disagreement"] == 0 and team["Coordinator overrides"] == 0
    assert team["Auditor triggers"] == 3  # task_2's verifier flagged twice, task_3's once
    assert team["Precision warning→failure"] == 0.5 and team["Recall failure→warning"] == 1.0


def test_research_sections(report: dict[str, Any]) -> None:
    stats = {r["metric"]: r for r in rows(report, "metric-statistics")}
    assert stats["final_score"]["n"] == 3 and stats["final_score"]["pm"] == pytest.approx([2 / 3, 0.57735], abs=1e-5)
    assert stats["final_score"]["ci"] == [0.0, 1.0]
    assert stats["discovery_score"]["ci"] is None  # one value: no interval
    correlations = {(r["a"], r["b"]): r["r"] for r in rows(report, "correlations")}
    assert correlations[("final_score", "tool_efficiency")] == pytest.approx(0.866025, abs=1e-6)
    quartiles = rows(report, "ablation-efficiency")
    assert [(q["quartile"], q["n"]) for q in quartiles] == [("Q1", 1), ("Q2", 1), ("Q3", 1), ("Q4", 0)]


def test_every_artifact_of_the_seed_tree_is_in_the_manifest(out: Path) -> None:
    files = set(read_manifest(out)["files"])
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


def test_replay_attributes_the_failure_to_its_steps(out: Path) -> None:
    replay = TaskReplay.model_validate_json((out / "task_3" / "task_replay.json").read_bytes())
    attribution = replay.failure_attribution
    assert attribution is not None
    assert (attribution.failure_category, attribution.root_cause, attribution.failure_stage) == (
        "TOOL_EXECUTION_FAILURE",
        "timeout",
        "EXECUTE",
    )
    assert attribution.evidence_trace_step_ids == [3, 5, 6]  # the failed read_csv and execute_python steps
    assert replay.run_context.harness_health_status == "HEALTHY"
    assert replay.run_context.time_accounting.unaccounted_overhead_time_seconds == 592.0
    assert [d.decision for d in replay.coordinator_decisions] == ["PROCEED", "REPLAN"]
    ok = TaskReplay.model_validate_json((out / "task_1" / "task_replay.json").read_bytes())
    assert ok.failure_attribution is None and ok.final_answer is not None and ok.final_answer.source == "prediction.csv"
    assert (out / "task_1" / "answer.csv").read_text().splitlines()[0] == ",".join(ok.final_answer.columns)


def test_text_reports(out: Path) -> None:
    health = (out / "engineering_health_report.txt").read_text()
    assert "Harness health: 10.0/10 HEALTHY" in health and "Run quality: DEGRADED" in health
    assert "[WARN] tool failure rate: 23.5%" in health  # 4 failed of 17 tool calls
    reconciliation = (out / "artifact_reconciliation_report.txt").read_text()
    assert "Status: PASSED (3/3 tasks without errors, 100.0%)" in reconciliation
    assert "[WARNING] task_3 replan_count_consistent" in reconciliation
    assert "| Precision warning→failure | 50.0% (1/2) |" in (out / "auditor_validation_report.md").read_text()
    paper = (out / "paper_tables.md").read_text()
    assert "| final_score | 3 | 0.667 ± 0.577 | [0.000, 1.000] |" in paper
    assert "| timeout | 1 | 100.0% |" in paper
    assert r"0.667 $\pm$ 0.577" in (out / "paper_tables.tex").read_text()


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


def test_baseline_adds_the_comparison_table(out: Path, tmp_path: Path) -> None:
    evaluate(tmp_path, "research", baseline=out)
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
                          PipelineOptions(figures=False))  # fmt: skip
    assert result.health is not None and result.health.harness.validator_errors == 1
    assert result.health.harness.status == "DEGRADED"  # 5 + 2.5·2/3 + 2.5 = 9.17, but an unreadable part
    replay = TaskReplay.model_validate_json((tmp_path / "out" / "task_2" / "task_replay.json").read_bytes())
    assert [e["code"] for e in replay.task_errors] == ["invalid_trace"] and replay.trace_format == "missing"
