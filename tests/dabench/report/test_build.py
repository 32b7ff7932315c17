from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.dabench.example import rows as section_rows
from tracegrade.dabench import Mode, Resampling, RunRows, build_report
from tracegrade.dabench.analyses._auditor import analyst_team
from tracegrade.dabench.analyses._health import assess_health
from tracegrade.dabench.analyses._reconcile import TableFacts, reconcile
from tracegrade.dabench.analyses._sections import Section
from tracegrade.dabench.report._build import STANDARD_TASK_ROWS, DabenchReport


def test_reconciliation_view_of_the_example(example_report: dict[str, Any]) -> None:
    checks = {r["check"]: r for r in section_rows(example_report, "reconciliation")}
    assert checks["time_accounting"]["warning"] == 1 and checks["replan_count_consistent"]["warning"] == 1
    assert checks["retry_count_consistent"]["warning"] == 1 and sum(c["error"] for c in checks.values()) == 0


def report(mode: Mode | str, tasks: int = 2, **kwargs: Any) -> DabenchReport:
    data = tuple({"task_id": f"t{i}", "final_score": i % 2, "execution_success": 1} for i in range(tasks))
    run = RunRows("r", Path("r"), data)
    rec = reconcile(run.rows, TableFacts())
    health = assess_health("r", run.rows, rec, {}, run.success_threshold)
    return build_report(run, health, rec, analyst_team(run, {}), mode, **kwargs)  # type: ignore[arg-type]


def ids(document: DabenchReport) -> list[str]:
    return [s.id for s in document.sections]


def test_each_mode_adds_sections_to_the_one_before() -> None:
    standard, verbose, research = (ids(report(mode)) for mode in Mode)
    assert standard[:3] == ["harness-health", "run-quality", "per-task"]
    assert "analyst-team" not in standard and "reconciliation" not in standard
    assert set(standard) < set(verbose) and {"analyst-team", "reconciliation"} <= set(verbose)
    assert set(verbose) < set(research)
    assert set(research) - set(verbose) == {
        "metric-statistics", "correlations", "ablation-verification", "ablation-replanning", "ablation-efficiency"
    }


def test_standard_mode_shows_the_first_tasks_and_verbose_all_of_them() -> None:
    tasks = STANDARD_TASK_ROWS + 1
    per_task = {mode: next(s for s in report(mode, tasks).sections if s.id == "per-task") for mode in Mode}
    assert len(per_task[Mode.STANDARD].rows) == STANDARD_TASK_ROWS
    assert per_task[Mode.STANDARD].notes[-1].startswith("1 more tasks not shown")
    assert len(per_task[Mode.VERBOSE].rows) == tasks


def test_the_report_records_its_mode_and_resampling_reaches_the_statistics() -> None:
    document = report("research", resampling=Resampling(resamples=150, level=0.8))  # a plain string is accepted
    assert document.mode is Mode.RESEARCH and document.model_dump(mode="json")["mode"] == "research"
    stats = next(s for s in document.sections if s.id == "metric-statistics")
    assert stats.notes[0].startswith("80% CI: percentile bootstrap of the mean, 150 resamples, seed 0;")


def test_extra_sections_come_last_and_follow_the_mode_too() -> None:
    extra = {"more": [Section(id="mine", title="Mine"), Section(id="deep", title="Deep", mode=Mode.RESEARCH)]}
    assert ids(report(Mode.STANDARD, extra=extra))[-1] == "mine"
    assert ids(report(Mode.RESEARCH, extra=extra))[-2:] == ["mine", "deep"]


def test_the_report_carries_the_health_verdicts() -> None:
    document = report(Mode.STANDARD)
    assert (document.run_id, document.tasks, document.harness_status) == ("r", 2, "HEALTHY")
    assert document.run_quality_status == "DEGRADED"  # one of two answers right: 50 % is the floor of DEGRADED
