from __future__ import annotations

import pytest

from tests.dabench.builders import record, table, tool_step
from tracegrade.dabench import MetricParams, evaluate_task
from tracegrade.dabench.metrics._columns import TASK_COLUMNS
from tracegrade.dabench.metrics._registry import FAMILIES, column_family, failed_task_metrics


def test_every_column_belongs_to_exactly_one_family() -> None:
    owned = [c for family in FAMILIES for c in family.columns]
    assert sorted(owned) == sorted(c.name for c in TASK_COLUMNS)
    assert len(set(owned)) == len(owned)


def test_families_run_in_the_seed_order_with_mas_effectiveness_after_aat() -> None:
    names = [f.name for f in FAMILIES]
    assert names[:4] == ["identification", "task_metadata", "correctness", "execution"]
    assert names.index("mas_effectiveness") == names.index("aat") + 1
    assert names[-2:] == ["per_stage", "per_action"]


def test_the_mas_columns_belong_to_mas_effectiveness_whatever_their_category() -> None:
    by_name = {c.name: c for c in TASK_COLUMNS}
    assert column_family(by_name["initial_answer_correct"]) == "mas_effectiveness"
    assert column_family(by_name["final_score"]) == "correctness"


def answered(prediction: list[str]) -> dict[str, object]:
    steps = [tool_step(1, "read_csv", {"columns": ["a"]}), tool_step(2, "answer", args={"columns": prediction})]
    return {"task_id": "task_1", "steps": steps}


def test_one_task_gives_a_row_in_column_order_with_reasons_only_for_nulls() -> None:
    rec = record(answered(["x", "y"]), gold=table(["x"], ["1"]), prediction=table(["x", "y"], ["1", "2"]))
    metrics = evaluate_task(rec, MetricParams())
    assert list(metrics.values) == [c.name for c in TASK_COLUMNS]
    assert set(metrics.reasons) == {name for name, value in metrics.values.items() if value is None}
    assert metrics.score is not None and metrics.values["final_score"] == metrics.score.final_score


@pytest.mark.parametrize(("lam", "expected"), [(0.5, 0.75), (0.0, 1.0), (2.0, 0.0)])
def test_lambda_reaches_the_answer_score(lam: float, expected: float) -> None:
    rec = record(answered(["x", "y"]), gold=table(["x"], ["1"]), prediction=table(["x", "y"], ["1", "2"]))
    # gold column found (recall 1), one extra of two predicted: max(0, 1 − λ · 1/2)
    assert evaluate_task(rec, MetricParams(lam=lam)).values["final_score"] == expected


def test_without_gold_the_answer_metrics_are_null_with_the_datasets_reason() -> None:
    metrics = evaluate_task(record(answered(["x"]), prediction=table(["x"], ["1"])), MetricParams())
    assert metrics.score is None and metrics.values["final_score"] is None
    assert metrics.reasons["final_score"] == "no gold.csv"


def test_a_task_that_could_not_be_read_is_a_row_of_nulls_naming_its_error() -> None:
    metrics = failed_task_metrics("run", "task_9", "invalid_trace")
    assert (metrics.values["run_id"], metrics.values["task_id"], metrics.values["task_errors"]) == (
        "run",
        "task_9",
        "invalid_trace",
    )
    nulls = [name for name, value in metrics.values.items() if value is None]
    assert len(nulls) == len(TASK_COLUMNS) - 3
    assert {metrics.reasons[name] for name in nulls} == {"task could not be evaluated (invalid_trace)"}
