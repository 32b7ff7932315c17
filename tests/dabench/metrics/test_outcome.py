from __future__ import annotations

import pytest

from tests.dabench.builders import metrics, reasons, record, table, tool_step


def test_correctness_levels_by_hand() -> None:
    gold = table(["v"], ["1"], ["2"], ["3"])
    prediction = table(["v", "w"], ["1", "x"], ["2", "y"], ["4", "z"])
    values = metrics(record({"steps": []}, gold=gold, prediction=prediction))
    assert values["final_score"] == 0.0  # {1,2,4} ≠ {1,2,3}: no column matches
    assert values["answer_precision"] == pytest.approx(2 / 6)
    assert values["answer_recall"] == pytest.approx(2 / 3)
    assert values["answer_f1"] == pytest.approx(2 * 2 / (6 + 3))
    assert (values["column_precision"], values["column_recall"], values["column_f1"]) == (0.0, 0.0, 0.0)
    assert (values["row_precision"], values["row_recall"], values["row_f1"]) == (1.0, 1.0, 1.0)
    assert (values["pred_rows"], values["pred_cols"], values["gold_rows"], values["gold_cols"]) == (3, 2, 3, 1)
    assert values["dataspace_task_accuracy"] == 0 and values["dataspace_error_code"] == "column_count_mismatch"


def test_rows_precision_recall_from_counts() -> None:
    gold = table(["v"], ["1"], ["2"])
    values = metrics(record({"steps": []}, gold=gold, prediction=table(["v"], ["1"], ["2"], ["3"], ["4"])))
    assert (values["row_precision"], values["row_recall"]) == (0.5, 1.0)
    assert values["row_f1"] == pytest.approx(2 * 0.5 / 1.5)


def test_without_gold_answer_metrics_are_null_and_the_rest_computed() -> None:
    rec = record({"steps": [tool_step(1, "list_context")]}, prediction=table(["a"], ["1"]))
    values = metrics(rec)
    assert values["final_score"] is None and values["ground_truth_available"] is False
    assert reasons(rec)["final_score"] == "no gold.csv"
    assert (values["pred_cols"], values["tool_calls"], values["trajectory_length"]) == (1, 1, 1)


def test_execution_counts_and_tokens_null_without_token_counts() -> None:
    steps = [tool_step(1, "read_csv"), tool_step(2, "execute_python", ok=False)]
    rec = record({"steps": steps, "e2e_elapsed_seconds": 12.5}, succeeded=False)
    values = metrics(rec)
    assert (values["execution_success"], values["execution_time"]) == (0, 12.5)
    assert (values["llm_calls"], values["tool_calls"], values["tool_failures"]) == (2, 2, 1)
    assert values["total_tokens"] is None
    assert reasons(rec)["total_tokens"] == "no token counts in this trace format"


def test_task_metadata_from_context_kinds() -> None:
    values = metrics(record({"steps": []}, kinds=("csv", "db", "md")))
    assert (values["task_type"], values["source_count"], values["source_types"]) == ("multi_source", 3, "csv+db+md")
    assert values["requires_cross_source_reasoning"] is True
