from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracegrade.atif.asking._replies import MAX_RATIONALE_CHARS, parse_categorization, parse_criteria, parse_scores
from tracegrade.errors import JudgeError

NAMES = frozenset({"a", "b"})


def code_of(call: Any, *args: Any) -> str:
    with pytest.raises(JudgeError) as caught:
        call(*args)
    return caught.value.code


def test_valid_scores_including_a_genuine_zero() -> None:
    reply = parse_scores({"scores": {"a": 0, "b": 1.0}, "rationale": "ok"}, NAMES)
    assert reply.scores == {"a": 0.0, "b": 1.0}
    assert all(type(v) is float for v in reply.scores.values())
    assert reply.rationale == "ok"


def test_scores_come_in_name_order_whatever_order_the_judge_wrote() -> None:
    """A fresh answer and the same answer replayed from the cache fill steps.parquet's map alike."""
    reply = parse_scores({"scores": {"b": 0.25, "a": 0.75}, "rationale": "ok"}, NAMES)
    assert list(reply.scores.items()) == [("a", 0.75), ("b", 0.25)]


@pytest.mark.parametrize(
    "scores",
    [
        {"a": True, "b": 0.5},
        {"a": "0.5", "b": 0.5},
        {"a": float("nan"), "b": 0.5},
        {"a": float("inf"), "b": 0.5},
        {"a": -0.01, "b": 0.5},
        {"a": 1.01, "b": 0.5},
        {"a": None, "b": 0.5},
        {"a": 10**400, "b": 0.5},
        {"a": 0.5},
        {"a": 0.5, "b": 0.5, "c": 0.5},
        {"A": 0.5, "b": 0.5},
        [0.5, 0.5],
    ],
)
def test_bad_scores_are_schema_violations(scores: Any) -> None:
    assert code_of(parse_scores, {"scores": scores, "rationale": "x"}, NAMES) == "schema_violation"


def test_missing_scores_object_is_a_schema_violation() -> None:
    assert code_of(parse_scores, {"score": 0.5}, NAMES) == "schema_violation"


def test_rationale_is_capped_and_must_be_text() -> None:
    long = parse_scores({"scores": {"a": 1, "b": 1}, "rationale": "x" * 5000}, NAMES)
    assert len(long.rationale) == MAX_RATIONALE_CHARS
    assert parse_scores({"scores": {"a": 1, "b": 1}}, NAMES).rationale == ""
    assert code_of(parse_scores, {"scores": {"a": 1, "b": 1}, "rationale": 3}, NAMES) == "schema_violation"


@settings(max_examples=400, deadline=None)
@given(value=st.one_of(st.floats(), st.integers(), st.booleans(), st.text(max_size=5), st.none(),
                       st.lists(st.floats(), max_size=2)))
def test_no_out_of_range_nan_or_boolean_score_is_ever_accepted(value: Any) -> None:
    try:
        reply = parse_scores({"scores": {"a": value, "b": 0.5}}, NAMES)
    except JudgeError as error:
        assert error.code == "schema_violation"
    else:
        score = reply.scores["a"]
        assert not isinstance(value, bool)
        assert type(score) is float and math.isfinite(score) and 0.0 <= score <= 1.0


@settings(max_examples=200, deadline=None)
@given(scores=st.dictionaries(st.sampled_from(["a", "b", "c"]), st.floats(0, 1), max_size=3))
def test_the_criterion_set_must_match_exactly(scores: dict[str, float]) -> None:
    try:
        reply = parse_scores({"scores": scores}, NAMES)
    except JudgeError:
        assert set(scores) != NAMES
    else:
        assert set(reply.scores) == NAMES


def test_categories_must_be_exactly_one_of_the_taxonomy() -> None:
    assert parse_categorization({"category": "context_loss", "rationale": "r"}).actionable
    assert not parse_categorization({"category": "none"}).actionable
    for bad in ("Context_Loss", "context_loss ", "other", None, 3):
        assert code_of(parse_categorization, {"category": bad}) == "schema_violation"


def test_derived_criteria_defaults_and_rubric() -> None:
    reply = parse_criteria({"criteria": [{"name": "a", "description": "A", "weight": 2}, {"name": "b", "weight": 1}]})
    rubric = reply.rubric()
    assert [(c.name, c.description, c.weight) for c in rubric.criteria] == [("a", "A", 2.0), ("b", "b", 1.0)]
    assert parse_criteria(reply.to_json()) == reply


@pytest.mark.parametrize(
    "answer",
    [
        {},
        {"criteria": []},
        {"criteria": [{"name": f"c{i}", "weight": 1} for i in range(33)]},
        {"criteria": [{"name": "a", "weight": 1}, {"name": "a", "weight": 1}]},
        {"criteria": [{"name": "", "weight": 1}]},
        {"criteria": [{"name": 3, "weight": 1}]},
        {"criteria": [{"name": "a", "description": "A"}]},  # a criterion without a weight is invalid
        {"criteria": [{"name": "a", "weight": 1e15}]},  # an absurd weight
        {"criteria": [{"name": "<name>", "description": "<description>", "weight": 1}]},  # echoed template
        {"criteria": [{"name": "a", "description": " <description> ", "weight": 1}]},
        {"criteria": [{"name": "a", "weight": 0}]},
        {"criteria": [{"name": "a", "weight": -1}]},
        {"criteria": [{"name": "a", "weight": True}]},
        {"criteria": [{"name": "a", "weight": float("inf")}]},
        {"criteria": [{"name": "a", "weight": "2"}]},
        {"criteria": [{"name": "a", "description": 5, "weight": 1}]},
        {"criteria": ["a"]},
    ],
)
def test_invalid_derived_criteria_are_schema_violations(answer: dict[str, Any]) -> None:
    assert code_of(parse_criteria, answer) == "schema_violation"


def test_an_echoed_rationale_placeholder_is_refused_but_angle_brackets_in_prose_are_not() -> None:
    assert code_of(parse_scores, {"scores": {"a": 1, "b": 1}, "rationale": "<a few sentences>"}, NAMES) == (
        "schema_violation"
    )
    reply = parse_scores({"scores": {"a": 1, "b": 1}, "rationale": "It ran `ls <dir>` correctly."}, NAMES)
    assert reply.rationale == "It ran `ls <dir>` correctly."


def test_a_weight_of_100_is_the_largest_accepted() -> None:
    assert parse_criteria({"criteria": [{"name": "a", "weight": 100}]}).criteria[0].weight == 100.0
