from __future__ import annotations

from typing import Any

import pytest

from tracegrade.errors import ConfigError
from tracegrade.rubric import Aggregation, check_keys, rubric_from_data, text_field, version_text

CRITERION = {"name": "c", "description": "d", "weight": 1}


def test_a_document_becomes_a_rubric_with_defaults_for_what_it_leaves_out() -> None:
    rubric = rubric_from_data({"criteria": [CRITERION]}, where="w", default_name="custom")
    assert (rubric.name, rubric.version, rubric.aggregation) == ("custom", "1", Aggregation.WEIGHTED_MEAN)
    assert rubric.normalized() == [{"name": "c", "description": "d", "weight": 1.0}]


def test_the_aggregation_is_read_in_any_case() -> None:
    rubric = rubric_from_data({"aggregation": " Minimum ", "criteria": [CRITERION]}, where="w")
    assert rubric.aggregation is Aggregation.MINIMUM


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([CRITERION], "w: the rubric must be an object"),
        ({"criteria": [CRITERION], "extra": 1}, "w: unknown key.s. extra; allowed: aggregation, criteria"),
        ({"name": "q"}, "w: missing required key.s. criteria"),
        ({"criteria": []}, "w: criteria must hold 1 to 32 items, got 0"),
        ({"criteria": [CRITERION, CRITERION]}, "criterion names must be unique; 'c' appears twice"),
        ({"criteria": [{**CRITERION, "weight": "2"}]},
         "criterion 'c' weight must be a positive finite number, got str '2'"),
        ({"criteria": [{**CRITERION, "weight": 2**1100}]}, "got an integer of 1,101 bits"),
        ({"criteria": [{**CRITERION, "weight": -1}]}, "got -1"),
        ({"criteria": [CRITERION], "aggregation": "median"}, "aggregation must be one of weighted_mean, mean, minimum"),
        ({"criteria": [{"name": "c", "description": "d"}]}, r"w: criteria\[0\]: missing required key.s. weight"),
    ],
)
def test_each_broken_rule_is_named_with_its_place(data: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        rubric_from_data(data, where="w")


def test_callers_may_allow_keys_of_their_own() -> None:
    rubric_from_data({"criteria": [CRITERION], "references": []}, where="w", extra_keys=("references",))


def test_keys_are_checked_for_unknown_ones_before_missing_ones() -> None:
    with pytest.raises(ConfigError, match="unknown key"):
        check_keys({"b": 1}, allowed={"a"}, required=("a",), where="w")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (3, "must be a string, got int"),
        ("  ", "must not be empty"),
        ("x" * 11, "must be at most 10 characters, got 11"),
    ],
)
def test_a_text_field_must_be_a_short_non_blank_string(value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=f"w: label {message}"):
        text_field(value, "w", "label", max_chars=10)


def test_a_text_field_comes_back_stripped() -> None:
    assert text_field("  ok \n", "w", "label", max_chars=10) == "ok"


def test_a_version_may_be_an_integer_but_not_a_boolean_or_a_huge_number() -> None:
    assert version_text(3, "w") == "3" and version_text(" v2 ", "w") == "v2"
    with pytest.raises(ConfigError, match="version must be a string or an integer"):
        version_text(True, "w")
    with pytest.raises(ConfigError, match="version must be at most 200 characters"):
        version_text(10**5000, "w")  # beyond what str() converts
