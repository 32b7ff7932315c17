import pytest

from tracegrade.rubric import Aggregation, Criterion, Rubric, ScoringMode, aggregate


def rubric(aggregation: Aggregation) -> Rubric:
    criteria = (Criterion(name="a", description="A", weight=3), Criterion(name="b", description="B", weight=1))
    return Rubric(criteria=criteria, aggregation=aggregation)


@pytest.mark.parametrize(
    ("aggregation", "expected"),
    [(Aggregation.WEIGHTED_MEAN, 0.7), (Aggregation.MEAN, 0.5), (Aggregation.MINIMUM, 0.1)],
)
def test_step_score_is_computed_locally_with_the_aggregation(aggregation, expected):
    assert aggregate(rubric(aggregation), {"a": 0.9, "b": 0.1}) == pytest.approx(expected)


@pytest.mark.parametrize("scores", [{"a": 1.0}, {"a": 1.0, "b": 1.0, "c": 1.0}])
def test_returned_criteria_must_equal_the_rubric_set(scores):
    with pytest.raises(ValueError, match="exactly"):
        rubric(Aggregation.MEAN).score(scores)


def test_criteria_hash_changes_with_weights_and_aggregation():
    assert rubric(Aggregation.MEAN).criteria_hash != rubric(Aggregation.MINIMUM).criteria_hash
    one = Rubric(criteria=(Criterion(name="a", description="A", weight=1),))
    two = Rubric(criteria=(Criterion(name="a", description="A", weight=2),))
    assert one.criteria_hash != two.criteria_hash


def test_scoring_modes():
    assert [mode.value for mode in ScoringMode] == ["auto", "benchmark", "reference", "custom"]


@pytest.mark.parametrize(
    "fields",
    [{"name": "  ", "description": "d"}, {"name": "a", "description": "d", "weight": 0},
     {"name": "a", "description": "d", "weight": float("inf")}, {"name": "a", "description": "d", "weight": True}],
)
def test_a_blank_name_or_a_weight_that_is_not_a_positive_number_is_refused(fields):
    with pytest.raises(ValueError):
        Criterion(**fields)


def test_names_and_descriptions_are_stored_stripped():
    criterion = Criterion(name=" a ", description=" does a \n", weight=2)
    assert (criterion.name, criterion.description, criterion.weight) == ("a", "does a", 2.0)


def test_two_criteria_of_one_name_are_refused():
    with pytest.raises(ValueError, match="duplicate criterion name 'a'"):
        Rubric(criteria=(Criterion(name="a", description="A"), Criterion(name="a", description="B")))


def test_normalized_criteria_keep_the_rubric_order():
    assert [c["name"] for c in rubric(Aggregation.MEAN).normalized()] == ["a", "b"]
    assert rubric(Aggregation.MEAN).names == {"a", "b"}
