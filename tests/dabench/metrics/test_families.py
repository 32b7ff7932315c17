from __future__ import annotations

import pytest

from tests.dabench.builders import record, tool_step
from tracegrade.dabench import MetricParams
from tracegrade.dabench.metrics._families import MetricContext, Out, f1


def test_a_null_value_always_carries_a_reason() -> None:
    out = Out()
    out.put("a", 1.0)
    out.put("b", None, "no gold")
    out.put("c", None)
    assert out.values == {"a": 1.0, "b": None, "c": None}
    assert out.reasons == {"b": "no gold", "c": "not applicable"}


def test_null_sets_several_columns_for_one_reason() -> None:
    out = Out()
    out.null(("x", "y"), "no steps")
    assert out.values == {"x": None, "y": None} and out.reasons == {"x": "no steps", "y": "no steps"}


@pytest.mark.parametrize(
    ("precision", "recall", "expected"),
    [(0.5, 1.0, 2 / 3), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), (None, 1.0, None), (0.5, None, None)],
)
def test_f1_is_the_harmonic_mean_and_unknown_when_either_side_is(
    precision: float | None, recall: float | None, expected: float | None
) -> None:
    assert f1(precision, recall) == (pytest.approx(expected) if expected is not None else None)


def test_context_names_why_an_earlier_family_left_a_value_null() -> None:
    context = MetricContext(
        record({"task_id": "task_1", "steps": [tool_step(1, "read_csv")]}), None, "no gold.csv", MetricParams(),
        {"final_score": None}, {"final_score": "no gold.csv"},
    )
    assert context.reasons_for("final_score") == "no gold.csv"
    assert context.reasons_for("analyst_score") == "not computed"
