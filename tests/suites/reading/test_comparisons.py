from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.suites.helpers import case, case_scorer, expectation, manifest, suite, write_dataset
from tracegrade.errors import ConfigError, InputError
from tracegrade.suites import (
    BUILTIN_COMPARISONS,
    CheckContext,
    Comparison,
    CustomScorer,
    ScorerRegistry,
    load_dataset,
)
from tracegrade.suites.checking._records import Observation
from tracegrade.suites.reading._comparisons import JudgeComparison, ProjectionError, Verdict, project

INPUT = {"payload": {"message": "Cancel renewal for account C-1."}}
SPAN = {"input_path": "/payload/message", "required": [0, 14], "allowed": [0, 29]}


def matches(name: str, actual: Any, expected: Any) -> bool:
    return BUILTIN_COMPARISONS[name].rule(actual, expected, INPUT)


def gold_problem(name: str, expected: Any) -> str | None:
    return ScorerRegistry().get(name).gold_problem(expected, INPUT)  # type: ignore[union-attr]


def test_exact_is_type_sensitive_and_ordered() -> None:
    assert matches("exact", {"a": [1, 2]}, {"a": [1, 2]})
    assert not matches("exact", True, 1)
    assert not matches("exact", [2, 1], [1, 2])


def test_set_ignores_order_and_duplicates_at_top_level_only() -> None:
    assert matches("set", [2, 1, 1], [1, 2])
    assert not matches("set", [[2, 1]], [[1, 2]])
    assert not matches("set", "12", [1, 2])


def test_one_of_text_and_contains() -> None:
    assert matches("one_of", "b", ["a", "b"])
    assert matches("text", "  Hello\n WORLD ", "hello world")
    assert matches("contains", "We will REFUND  you", "refund you")
    assert not matches("contains", 5, "5")


@pytest.mark.parametrize(("actual", "expected"), [
    ("Cancel renewal", True), ("Cancel renewal for account", True), ("Cancel renewal for account C-1", False),
    ("Cancel", False),
    ("cancel renewal", False), ("renewal for", False), ("", False), (None, False)])
def test_source_span_needs_a_verbatim_occurrence_covering_required(actual: object, expected: bool) -> None:
    assert matches("source_span", actual, SPAN) is expected


def test_gold_shapes_are_checked_per_comparison() -> None:
    assert gold_problem("exact", object()) is None
    assert gold_problem("set", "s") == "set gold must be an array"
    assert gold_problem("one_of", []) == "one_of gold must be a non-empty array"
    assert gold_problem("one_of", [1, 1]) == "one_of gold must not repeat a value"
    assert (gold_problem("text", 3), gold_problem("contains", 3)) == ("text gold must be a string",
                                                                      "contains gold must be a string")
    assert gold_problem("source_span", {**SPAN, "required": [0, 30]}) == \
        "source_span required range must lie inside the allowed range"
    assert gold_problem("source_span", {**SPAN, "allowed": [0, 99], "required": [0, 5]}) == \
        "source_span ranges exceed the source string"
    assert gold_problem("source_span", SPAN) is None
    assert gold_problem("judge", {"rubric": " "}) == \
        "judge rubric must be a non-blank string of at most 8,000 characters"
    assert gold_problem("judge", {"rubric": "polite", "extra": 1}) == \
        "judge gold must be an object with rubric and optionally reference"


def test_each_projects_every_item_or_fails() -> None:
    assert project([{"id": 1}, {"id": 2}], ("id",)) == [1, 2]
    with pytest.raises(ProjectionError, match="item_lacks_member"):
        project([{"id": 1}, {}], ("id",))
    with pytest.raises(ProjectionError, match="not_an_array"):
        project({"id": 1}, ("id",))


async def always(actual: object, expected: object) -> bool:
    return True


def test_one_registry_holds_the_builtins_the_judge_and_what_is_passed_in() -> None:
    registry = ScorerRegistry([CustomScorer("near", "r7", always)])
    assert all(registry.get(name) is not None for name in (*BUILTIN_COMPARISONS, "judge", "near"))
    assert registry.revisions(["near", "exact", "judge", "exact", "unknown"], "m") == {
        "exact": "builtin-1", "judge": "suite-check-v1:m", "near": "r7"}
    assert registry.revisions(["judge"], None) == {"judge": "suite-check-v1:none"}


def test_registry_refuses_builtin_duplicate_and_blank_names() -> None:
    for taken in ("exact", "judge"):
        with pytest.raises(ConfigError, match="is a built-in comparison"):
            ScorerRegistry([CustomScorer(taken, "1", always)])
    with pytest.raises(ConfigError, match="registered twice"):
        ScorerRegistry([CustomScorer("near", "1", always), CustomScorer("near", "2", always)])
    with pytest.raises(ConfigError, match="non-blank name and revision"):
        ScorerRegistry([CustomScorer("near", " ", always)])


async def test_a_custom_scorer_that_raises_or_answers_a_non_bool_has_no_verdict() -> None:
    async def boom(actual: object, expected: object) -> bool:
        raise RuntimeError("secret detail")

    async def truthy(actual: object, expected: object) -> bool:
        return 1  # type: ignore[return-value]

    check = CheckContext(1, 1, INPUT)
    assert await CustomScorer("a", "1", always).compare(check) == (True, None)
    assert await CustomScorer("b", "1", boom).compare(check) == (None, "scorer_error")
    assert await CustomScorer("c", "1", truthy).compare(check) == (None, "scorer_invalid_answer")


async def test_the_judge_comparison_asks_the_judge_it_is_given() -> None:
    asked: list[tuple[Any, Any, Any]] = []

    async def ask(gold: Any, case_input: dict[str, Any], observed: Any) -> Verdict:
        asked.append((gold, case_input, observed))
        return False, None

    judge = JudgeComparison()
    assert await judge.compare(CheckContext("hi", {"rubric": "r"}, INPUT)) == (None, "judge_not_configured")
    assert await judge.compare(CheckContext("hi", {"rubric": "r"}, INPUT, ask)) == (False, None)
    assert asked == [({"rubric": "r"}, INPUT, "hi")]


class Within(Comparison):
    """A user comparison: a number within ``tolerance`` of gold."""

    name = "within"
    revision = "w1"

    def __init__(self, tolerance: float) -> None:
        self.tolerance = tolerance

    def gold_problem(self, expected: Any, case_input: dict[str, Any]) -> str | None:
        return None if isinstance(expected, int | float) else "within gold must be a number"

    async def compare(self, check: CheckContext) -> Verdict:
        return isinstance(check.actual, int | float) and abs(check.actual - check.expected) <= self.tolerance, None


async def test_a_comparison_of_ones_own_is_checked_at_load_and_scored(tmp_path: Path) -> None:
    registry = ScorerRegistry([Within(0.5)])
    bad = write_dataset(tmp_path, manifest(suite("s", [case("c", expectation("n", "/n", "x", comparison="within"))])))
    with pytest.raises(InputError, match="/expected: within gold must be a number"):
        load_dataset(bad, registry)
    good = write_dataset(tmp_path, manifest(suite("s", [case("c", expectation("n", "/n", 2, comparison="within"))])),
                         "good.json")
    scorer = case_scorer(load_dataset(good, registry).suites[0].cases[0], registry)
    assert (await scorer.score(Observation({"n": 2.4}), 1, details=False)).passed
    assert not (await scorer.score(Observation({"n": 2.6}), 1, details=False)).passed
