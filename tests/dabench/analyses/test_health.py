from __future__ import annotations

from pathlib import Path
from typing import Any

from tracegrade.dabench.analyses._health import assess_health, format_health
from tracegrade.dabench.analyses._reconcile import TableFacts, TaskFacts, reconcile


def rows(outcomes: list[str | None], categories: list[str | None], scores: list[float | None]) -> list[dict[str, Any]]:
    return [
        {
            "task_id": f"t{i}",
            "outcome_status": o,
            "failure_category": c,
            "final_score": s,
            "execution_success": 1,
            "tool_calls": 1,
        }
        for i, (o, c, s) in enumerate(zip(outcomes, categories, scores, strict=True))
    ]


def health(data: list[dict[str, Any]], errors: list[str] = (), broken: int = 0) -> Any:  # type: ignore[assignment]
    facts = {r["task_id"]: TaskFacts(tool_calls=1 if i >= broken else 2) for i, r in enumerate(data)}
    rec = reconcile(data, TableFacts(tasks=facts))
    metadata = {"task_errors": [{"task_id": t, "code": "invalid_trace"} for t in errors]}
    return assess_health("run", data, rec, metadata, 0.8)


def test_clean_run_is_healthy_and_quality_is_separate() -> None:
    result = health(rows(["correct", "failed"], [None, "REASONING_FAILURE"], [1.0, 0.0]))
    assert (result.harness.score, result.harness.status, result.harness.action) == (10.0, "HEALTHY", "ready to use")
    assert result.quality.status == "DEGRADED" and result.quality.answer_accuracy == 0.5


def test_score_weights_reconciliation_validators_and_attribution() -> None:
    data = rows(
        ["failed", "failed", "correct", "correct"],
        ["UNKNOWN_FAILURE", "REASONING_FAILURE", None, None],
        [0.0, 0.0, 1.0, 1.0],
    )
    result = health(data, errors=["t3"], broken=1)
    # 5·3/4 + 2.5·(1 − 1/4) + 2.5·1/2 = 3.75 + 1.875 + 1.25
    assert result.harness.score == 6.88 and result.harness.status == "UNHEALTHY"
    text = format_health(result)
    assert "Harness health: UNHEALTHY (6.9/10: do not publish or compare" in text
    for word in ("FAIR", "GOOD", "POOR", "band"):  # one vocabulary: no second scale beside the verdict
        assert word not in text.split("Run quality")[0], word
    assert result.harness.attribution_coverage == 0.5 and result.harness.validator_errors == 1


def test_an_error_keeps_a_high_score_from_healthy() -> None:
    data = rows(["correct"] * 20, [None] * 20, [1.0] * 20)
    result = health(data, broken=1)  # one reconciliation error in 20 tasks: 5·0.95 + 5 = 9.75
    assert result.harness.score == 9.75 and result.harness.status == "DEGRADED"


def test_no_gold_means_unknown_quality_not_zero() -> None:
    result = health(rows([None], [None], [None]))
    assert result.quality.status == "UNKNOWN" and result.quality.answer_accuracy is None
    text = format_health(result)
    assert "answer accuracy (final_score >= threshold): n/a of 0 with gold" in text
    assert "  HEALTHY    score >= 9.0 and no reconciliation or validator error: ready to use" in text
    assert "failure attribution: no failed tasks" in text


def test_an_unreadable_task_part_keeps_the_harness_from_healthy() -> None:
    data = rows(["correct"] * 20, [None] * 20, [1.0] * 20)
    result = health(data, errors=["t0"])  # 5 + 2.5·19/20 + 2.5 = 9.875
    assert result.harness.score == 9.88 and result.harness.status == "DEGRADED"


def test_health_report_of_the_example(example_out: Path) -> None:
    text = (example_out / "engineering_health_report.txt").read_text()
    assert "Harness health: HEALTHY (10.0/10: ready to use)" in text and "Run quality: DEGRADED" in text
    assert "[WARN] tool failure rate: 23.5%" in text  # 4 failed of 17 tool calls
