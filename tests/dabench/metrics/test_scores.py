from __future__ import annotations

import pytest

from tests.dabench.builders import metrics, reasons, record, rich_step, rich_trace, table, tool_step
from tracegrade.dabench.metrics._scores import calibration_bucket

GOLD = table(["a", "b"], ["1", "x"])


@pytest.mark.parametrize(
    ("confidence", "bucket"),
    [
        (0.0, "very_low"),
        (0.19, "very_low"),
        (0.2, "low"),
        (0.5, "medium"),
        (0.39, "low"),
        (0.4, "medium"),
        (0.59, "medium"),
        (0.6, "high"),
        (0.75, "high"),
        (0.79, "high"),
        (0.8, "very_high"),
        (1.0, "very_high"),
    ],
)
def test_calibration_buckets_are_0_2_wide(confidence: float, bucket: str) -> None:
    assert calibration_bucket(confidence) == bucket


def test_confidence_error_against_final_score() -> None:
    prediction = table(["a", "z"], ["1", "q"])  # recall 0.5, 1 extra of 2 → 0.25
    values = metrics(record(rich_trace([], confidence_score=0.9), gold=GOLD, prediction=prediction))
    assert values["final_score"] == pytest.approx(0.25)
    assert values["confidence_error"] == pytest.approx(0.65)
    assert (values["confidence_correct"], values["calibration_bucket"]) == (0, "very_high")


@pytest.mark.parametrize(("confidence", "correct"), [(0.8, 1), (0.79, 0)])
def test_a_stated_confidence_of_exactly_0_8_on_a_right_answer_is_confident_and_correct(
    confidence: float, correct: int
) -> None:
    values = metrics(record(rich_trace([], confidence_score=confidence), gold=GOLD, prediction=GOLD))
    assert values["final_score"] == 1.0 and values["confidence_correct"] == correct


def test_no_confidence_is_null_with_reason() -> None:
    rec = record({"steps": [tool_step(1, "answer")]}, gold=GOLD, prediction=GOLD)
    assert metrics(rec)["confidence_score"] is None
    assert reasons(rec)["confidence_error"] == "no confidence stated in this trace"


def test_analyst_score_weights_autonomy_efficiency_and_verification() -> None:
    steps = [
        rich_step(1, "executor", "EXECUTE", "read_csv", tool="read_csv", observation={"ok": True, "content": {}}),
        rich_step(2, "executor", "EXECUTE", "read_csv", tool="read_csv", observation={"ok": True, "content": {}}),
        rich_step(3, "critic", "VERIFY", verification_status="failed"),
        rich_step(4, "critic", "VERIFY", verification_status="passed"),
    ]
    values = metrics(record(rich_trace(steps, plan_attempts=2)), max_replans=4)
    assert values["autonomy_score"] == 0.75
    assert values["tool_efficiency"] == 0.5  # the same read twice: one useful call of two
    assert values["verification_score"] == 0.5
    assert values["analyst_score"] == pytest.approx(0.4 * 0.75 + 0.3 * 0.5 + 0.3 * 0.5)


def test_analyst_score_names_its_missing_components() -> None:
    rec = record({"steps": [tool_step(1, "answer")]})
    assert metrics(rec)["analyst_score"] is None
    assert reasons(rec)["analyst_score"] == "needs autonomy_score, verification_score"


def test_research_metrics_cross_source_and_reproducibility() -> None:
    document = rich_trace([], answer={"columns": ["a", "b"], "rows": [[1, "x"]]}, explanation_quality_score=0.6)
    votes = (table(["p", "q"], ["x", "1.0"]), table(["p"], ["1"]), None)
    values = metrics(record(document, gold=GOLD, prediction=GOLD, kinds=("csv", "json"), votes=votes))
    assert values["cross_source_reasoning_success"] == 1
    assert values["explanation_quality_score"] == 0.6
    assert values["reproducibility_score"] == pytest.approx(1 / 3)


def test_single_source_task_has_no_cross_source_metric() -> None:
    rec = record({"steps": []}, gold=GOLD, prediction=GOLD, kinds=("csv",))
    assert metrics(rec)["cross_source_reasoning_success"] is None
    assert reasons(rec)["cross_source_reasoning_success"] == "single-source task"
