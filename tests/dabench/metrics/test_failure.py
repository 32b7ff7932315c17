from __future__ import annotations

import pytest

from tests.dabench.builders import metrics, record, table, tool_step

GOLD = table(["a", "b"], ["1", "x"], ["2", "y"])


def evaluate(prediction: object, **kwargs: object) -> dict[str, object]:
    return metrics(record({"steps": [tool_step(1, "answer")]}, gold=GOLD, prediction=prediction, **kwargs))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("prediction", "bucket", "category", "severity"),
    [
        (
            table(["a", "b", "c", "d"], ["1", "x", "q", "s"], ["2", "y", "r", "t"]),
            "extra_columns",
            "ANSWER_FORMAT_FAILURE",
            "LOW",
        ),
        (table(["a", "z"], ["1", "q"], ["2", "r"]), "low_recall", "REASONING_FAILURE", "MEDIUM"),
        (table(["z"], ["9"], ["8"]), "wrong_schema", "DATA_UNDERSTANDING_FAILURE", "HIGH"),
        (table(["z", "w"], ["9", "q"]), "wrong_row_count", "REASONING_FAILURE", "HIGH"),
        (table(["z", "w"], ["9", "q"], ["8", "r"]), "wrong_values", "DATA_UNDERSTANDING_FAILURE", "HIGH"),
        (None, "missing_prediction", "TOOL_EXECUTION_FAILURE", "CRITICAL"),
    ],
)
def test_evaluation_bucket_maps_to_a_structured_category(
    prediction: object, bucket: str, category: str, severity: str
) -> None:
    values = evaluate(prediction)
    assert values["outcome_error_type"] == bucket
    assert values["failure_category"] == category
    assert values["failure_category"] != "UNKNOWN_FAILURE"
    assert values["severity"] == severity
    assert values["suggested_fix"] and values["failure_attribution_stage"]


def test_low_recall_with_execution_is_partial() -> None:
    values = evaluate(table(["a", "z", "w"], ["1", "q", "s"], ["2", "r", "t"]))
    assert values["final_score"] == pytest.approx(0.5 - 0.5 * 2 / 3)
    assert values["outcome_status"] == "partial"


def test_correct_answer_has_no_failure_columns() -> None:
    values = evaluate(GOLD)
    assert values["outcome_status"] == "correct"
    assert values["failure_category"] is None and values["outcome_error_type"] is None


def test_timeout_without_prediction_is_a_critical_unrecoverable_timeout() -> None:
    values = evaluate(None, succeeded=False, failure_reason="Task timed out after 600 seconds.")
    assert (values["root_cause"], values["recoverable_failure"]) == ("timeout", False)
    assert values["failure_reason"] == "Task timed out after 600 seconds."
    assert values["outcome_status"] == "failed"


def test_max_steps_exhaustion_is_a_planning_failure() -> None:
    values = evaluate(None, succeeded=False, failure_reason="Agent did not submit an answer within max_steps.")
    assert values["failure_category"] == "PLANNING_FAILURE"


def test_single_row_wrong_value_is_an_aggregation_failure() -> None:
    rec = record({"steps": []}, gold=table(["n"], ["1"]), prediction=table(["n"], ["4"]))
    assert metrics(rec)["failure_category"] == "AGGREGATION_FAILURE"
