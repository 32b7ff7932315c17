from __future__ import annotations

import pytest

from tracegrade.dabench import score_answer
from tracegrade.dabench.metrics._answer import KddMatch, dataspace_check, kdd_match, kdd_score
from tracegrade.dabench.reading._records import AnswerTable


def table(header: list[str], *rows: list[str]) -> AnswerTable:
    return AnswerTable(tuple(header), tuple(tuple(r) for r in rows))


def test_headers_are_ignored_and_numbers_normalised() -> None:
    gold = table(["AVG(T1.Age) / 12"], ["4200000"])
    score = score_answer(gold, table(["avg"], ["4200000.00"]), lam=0.5)
    assert score.final_score == 1.0
    assert score.match == KddMatch(1, 1, 1, 1)


def test_extra_column_costs_lambda_times_share_of_extras() -> None:
    gold = table(["n"], ["17"])
    pred = table(["event", "count"], ["Women's Soccer", "17"])
    assert score_answer(gold, pred, lam=0.5).final_score == pytest.approx(1 - 0.5 * 1 / 2)
    assert score_answer(gold, pred, lam=0.0).final_score == 1.0


def test_partial_recall_with_extra_column() -> None:
    gold = table(["a", "b"], ["182.2832618025751", "34.083333333333336"])
    pred = table(["x", "y"], ["340.0", "34.083333333333336"])
    score = score_answer(gold, pred, lam=0.5)
    assert score.match.recall == 0.5
    assert score.final_score == pytest.approx(0.25)


def test_score_never_goes_below_zero() -> None:
    gold = table(["a"], ["1"])
    pred = table(["x", "y", "z"], ["2", "3", "4"])
    assert score_answer(gold, pred, lam=1.0).final_score == 0.0


def test_duplicate_identical_columns_match_once_each() -> None:
    assert kdd_match([("1",), ("1",)], [("1",)]) == KddMatch(1, 1, 2, 1)
    match = kdd_match([("1",)], [("1",), ("1",), ("1",)])
    assert match == KddMatch(1, 1, 1, 3)
    assert kdd_score(match, 0.5) == pytest.approx(1 - 0.5 * 2 / 3)


def test_row_order_and_row_alignment_are_ignored_by_signatures() -> None:
    gold = table(["k", "v"], ["a", "1"], ["b", "2"])
    pred = table(["k", "v"], ["b", "1"], ["a", "2"])
    score = score_answer(gold, pred, lam=0.5)
    assert score.final_score == 1.0
    assert (score.dataspace_pass, score.dataspace_error) == (False, "relation_mismatch")


def test_name_merge_two_gold_columns_into_one_prediction_column() -> None:
    gold = table(["first", "last", "cost"], ["Elijah", "Allen", "28.15"])
    pred = table(["name", "cost"], ["Elijah Allen", "28.15"])
    score = score_answer(gold, pred, lam=0.5)
    assert score.match == KddMatch(3, 2, 3, 2)
    assert score.final_score == 1.0


def test_name_split_one_gold_column_into_two_prediction_columns() -> None:
    gold = table(["name"], ["Elijah Allen"], ["Ann Lee"])
    pred = table(["first", "last"], ["Ann", "Lee"], ["Elijah", "Allen"])
    assert score_answer(gold, pred, lam=0.5).match == KddMatch(1, 2, 1, 2)


def test_missing_prediction_scores_zero_with_undefined_precision() -> None:
    score = score_answer(table(["a"], ["1"]), None, lam=0.5)
    assert score.final_score == 0.0
    assert score.prediction_error == "missing_prediction"
    assert score.match == KddMatch(0, 0, 1, 0)


def test_dataspace_needs_equal_shape_and_aligned_rows() -> None:
    gold = [("a", "b"), ("1.00", "2.00")]
    assert dataspace_check(gold, [("2.00", "1.00"), ("b", "a")]) == (True, None)
    assert dataspace_check(gold, [*gold, ("x", "y")]) == (False, "column_count_mismatch")
    assert dataspace_check(gold, [("a", "b")]) == (False, "column_count_mismatch")
    assert dataspace_check([("a", "b")], [("a", "b", "c")]) == (False, "row_count_mismatch")


def test_cell_level_precision_and_recall_count_shared_values() -> None:
    gold = table(["v"], ["1"], ["2"], ["3"])
    pred = table(["v", "w"], ["1", "x"], ["2", "y"], ["4", "z"])
    score = score_answer(gold, pred, lam=0.5)
    assert score.matched_cells == 2
    assert (score.prediction_rows, score.gold_rows) == (3, 3)


def test_inf_is_text_and_matches_only_inf() -> None:
    assert score_answer(table(["r"], ["inf"]), table(["x"], ["inf"]), lam=0.5).final_score == 1.0
    assert score_answer(table(["r"], ["inf"]), table(["x"], ["Infinity"]), lam=0.5).final_score == 0.0
