from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.dabench.example import raw, rows
from tracegrade.dabench import RunRows
from tracegrade.dabench.analyses._overview import difficulty_section, overall_section, per_task_section, value_row


def test_health_panels(example_report: dict[str, Any]) -> None:
    report = example_report
    assert (report["harness_score"], report["harness_status"], report["run_quality_status"]) == (
        10.0,
        "HEALTHY",
        "DEGRADED",
    )
    assert raw(report, "harness-health") == {
        "Evaluated from": 3,
        "Reconciliation pass rate": 1.0,
        "Reconciliation errors": 0,
        "Validator errors": 0,
        "Attribution coverage": 1.0,
    }
    quality = raw(report, "run-quality")
    assert quality["Answer accuracy"] == pytest.approx(2 / 3) and quality["Execution success"] == pytest.approx(2 / 3)


def test_per_task_table(example_report: dict[str, Any]) -> None:
    got = [
        (r["task_id"], r["exec"], r["final_score"], r["outcome"], r["time"], r["steps"], r["tokens"], r["root_cause"])
        for r in rows(example_report, "per-task")
    ]
    assert got == [
        ("task_1", "✓", 1.0, "correct", 14.0, 10, 2500, ""),
        ("task_2", "✓", 1.0, "correct", 41.5, 18, 5000, ""),
        ("task_3", "✗", 0.0, "failed", 600.0, 8, 2000, "timeout"),
    ]


def test_overall_and_difficulty(example_report: dict[str, Any]) -> None:
    overall = raw(example_report, "overall")
    assert overall["Tasks"] == 3 and overall["Partial answers"] == 0 and overall["Total tokens"] == 9500
    assert overall["Execution success"] == pytest.approx(2 / 3)
    assert overall["Answer accuracy (≥ 0.8)"] == pytest.approx(2 / 3)
    assert overall["Mean final score"] == pytest.approx(2 / 3) and overall["Mean runtime"] == pytest.approx(218.5)
    table = {r["difficulty"]: r for r in rows(example_report, "difficulty")}
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


def run(*rows_: dict[str, Any], threshold: float = 0.8) -> RunRows:
    return RunRows("r", Path("r"), rows_, threshold)


def test_per_task_table_stops_at_the_limit_and_says_how_many_are_left() -> None:
    section = per_task_section(run(*({"task_id": f"t{i}", "execution_success": i % 2} for i in range(5))), 3)
    assert [r["task_id"] for r in section.rows] == ["t0", "t1", "t2"]
    assert [r["exec"] for r in section.rows] == ["✗", "✓", "✗"]
    assert section.notes[-1] == "2 more tasks not shown: see task_metrics.csv (or --mode verbose)."
    assert per_task_section(run(), None).empty == "no tasks in this run"


def test_accuracy_counts_scores_at_or_above_the_run_threshold() -> None:
    scores = [0.5, 0.7, 0.9, None]
    section = overall_section(run(*({"final_score": s} for s in scores), threshold=0.7))
    by = {r["measure"]: r for r in section.rows}
    assert by["Answer accuracy (≥ 0.7)"]["raw"] == pytest.approx(2 / 3)  # 0.7 and 0.9 of the three with gold
    assert by["Answer accuracy (≥ 0.7)"]["value"] == "66.7% (2/3)"
    assert by["Mean final score"]["raw"] == pytest.approx(0.7)


def test_without_gold_or_timing_the_summary_says_so_instead_of_zero() -> None:
    by = {r["measure"]: r for r in overall_section(run({"task_id": "t1"})).rows}
    assert (by["Mean final score"]["value"], by["Mean final score"]["raw"]) == ("— (no gold)", None)
    assert (by["Partial answers"]["value"], by["Mean runtime"]["value"]) == ("— (no gold)", "— (no timing)")
    assert by["Execution success"]["value"] == "— (no data)"


def test_difficulties_in_the_seed_order_then_the_rest_by_name_then_all() -> None:
    data = [{"difficulty": d, "final_score": 1.0} for d in ("weird", "hard", None, "easy")]
    section = difficulty_section(run(*data))
    assert [r["difficulty"] for r in section.rows] == ["easy", "hard", "unknown", "weird", "all"]
    assert section.rows[-1]["tasks"] == 4 and section.rows[-1]["accuracy"] == 1.0
    only = difficulty_section(run({"difficulty": "easy"}))
    assert [r["difficulty"] for r in only.rows] == ["easy"]  # one group: no "all" row repeating it


def test_value_row_keeps_the_number_beside_its_text() -> None:
    assert value_row("Tasks", "3", 3) == {"measure": "Tasks", "value": "3", "raw": 3}


def test_every_mean_and_total_says_how_many_tasks_it_is_over() -> None:
    rows = [{"task_id": "t1", "execution_time": 10.0, "final_score": 1.0, "total_tokens": 100},
            {"task_id": "t2", "execution_time": 30.0}, {"task_id": "t3"}]
    by = {r["measure"]: r["value"] for r in overall_section(run(*rows)).rows}
    assert by["Mean runtime"] == "20.0s (n=2)"  # before: "20.0s", as if over all 3 tasks
    assert by["Mean final score"] == "1.000 (n=1)" and by["Total tokens"] == "100 (n=1)"
