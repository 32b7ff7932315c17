"""Item 1: any weight the validator accepts combines exactly (no overflow, no underflow)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracegrade.rubric import Criterion, Rubric, aggregate, rubric_from_data


def weighted(*weights: float) -> Rubric:
    criteria = tuple(Criterion(name=f"c{i}", description="d", weight=w) for i, w in enumerate(weights))
    return Rubric(criteria=criteria)


@pytest.mark.parametrize("weight", [1e308, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 1.0])
def test_equal_extreme_weights_give_the_plain_mean(weight: float) -> None:
    rubric = weighted(weight, weight)
    assert aggregate(rubric, {"c0": 0.75, "c1": 0.75}) == 0.75
    assert aggregate(rubric, {"c0": 0.3, "c1": 0.3}) == 0.3
    assert aggregate(rubric, {"c0": 1.0, "c1": 0.0}) == 0.5


def test_a_huge_weight_dominates_a_tiny_one() -> None:
    assert aggregate(weighted(1e308, 5e-324), {"c0": 0.25, "c1": 1.0}) == 0.25
    assert aggregate(weighted(1e308, 1e308, 1e307), {"c0": 1.0, "c1": 1.0, "c2": 0.0}) == pytest.approx(20 / 21)


def test_registry_weights_at_the_float_limits_score_exactly() -> None:
    data = {"criteria": [{"name": "a", "description": "A", "weight": 1e308},
                         {"name": "b", "description": "B", "weight": 1e308}]}
    assert rubric_from_data(data, where="test").score({"a": 0.75, "b": 0.75}) == 0.75


weights = st.floats(min_value=5e-324, max_value=1.7976931348623157e308, allow_nan=False, allow_infinity=False)
unit = st.floats(min_value=0.0, max_value=1.0)


@settings(max_examples=400, deadline=None)
@given(pairs=st.lists(st.tuples(weights, unit), min_size=1, max_size=32))
def test_weighted_mean_stays_between_the_lowest_and_highest_score(pairs: list[tuple[float, float]]) -> None:
    rubric = weighted(*(w for w, _ in pairs))
    scores = {f"c{i}": s for i, (_, s) in enumerate(pairs)}
    combined = aggregate(rubric, scores)
    assert min(scores.values()) <= combined <= max(scores.values())


@settings(max_examples=200, deadline=None)
@given(weight=weights, score=unit, count=st.integers(1, 32))
def test_equal_scores_combine_to_that_score(weight: float, score: float, count: int) -> None:
    rubric = weighted(*([weight] * count))
    assert aggregate(rubric, {f"c{i}": score for i in range(count)}) == score


@settings(max_examples=400)
@given(pairs=st.lists(st.tuples(weights, unit), min_size=1, max_size=32))
def test_weighted_mean_is_the_exact_rational_weighted_mean(pairs: list[tuple[float, float]]) -> None:
    # a clamp between the lowest and highest score alone would not pass this: the mean itself is checked
    from fractions import Fraction

    rubric = weighted(*(w for w, _ in pairs))
    exact = sum(Fraction(w) * Fraction(s) for w, s in pairs) / sum(Fraction(w) for w, _ in pairs)
    assert aggregate(rubric, {f"c{i}": s for i, (_, s) in enumerate(pairs)}) == pytest.approx(float(exact), abs=1e-12)
