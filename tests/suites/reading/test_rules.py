from __future__ import annotations

from typing import Any

from tests.suites.helpers import case, expectation
from tracegrade.suites import Case, ScorerRegistry
from tracegrade.suites.reading._dataset import Metric
from tracegrade.suites.reading._rules import case_problems, matching_expectation, metric_problems


def problems_of(*expectations: dict[str, Any]) -> list[tuple[str, str]]:
    return case_problems(Case.model_validate(case("c", *expectations)), ScorerRegistry())


def test_a_sound_case_has_no_problem() -> None:
    span = {"input_path": "/payload/q", "required": [0, 1], "allowed": [0, 1]}
    assert problems_of(expectation("a", "/x", 1), expectation("b", "/y", span, comparison="source_span")) == []


def test_case_problems_are_placed_inside_the_case() -> None:
    found = problems_of(expectation("a", "x", 1, each="y"), expectation("a", "/y", 1),
                        expectation("b", "/z", 1, comparison="fuzzy"), expectation("c", "/w", "s", comparison="set"))
    assert found == [("/expectations/0/path", "not an RFC 6901 JSON pointer"),
                     ("/expectations/0/each", "not an RFC 6901 JSON pointer"),
                     ("/expectations/1/name", "duplicate expectation name 'a'"),
                     ("/expectations/2/comparison", "unknown comparison 'fuzzy'"),
                     ("/expectations/3/expected", "set gold must be an array")]


def test_source_span_gold_is_checked_against_the_case_input() -> None:
    gold = {"input_path": "/payload/q", "required": [0, 1], "allowed": [0, 9]}
    assert problems_of(expectation("s", "/x", gold, comparison="source_span")) == [
        ("/expectations/0/expected", "source_span ranges exceed the source string")]


def metric(**extra: Any) -> Metric:
    return Metric.model_validate({"name": "m", "path": "/cat", "kind": "classification", "labels": ["a", "b"],
                                  **extra})


def test_a_metric_measures_the_expectation_at_its_path_and_name() -> None:
    gold = Case.model_validate(case("c", expectation("one", "/cat", "a"), expectation("two", "/cat", "b")))
    assert [e.name for e in matching_expectation(metric(), gold)] == ["one", "two"]
    assert [e.name for e in matching_expectation(metric(expectation="two"), gold)] == ["two"]
    assert metric_problems(metric(), [gold]) == [
        ("", "case 'c' has 2 matching expectations; name one with `expectation`"),
        ("", "no case has gold for this metric (same path, each and expectation)")]
    assert metric_problems(metric(expectation="two"), [gold]) == []


def test_metric_gold_must_fit_the_catalog_and_kind() -> None:
    gold = Case.model_validate(case("c", expectation("cat", "/cat", "x")))
    assert metric_problems(metric(), [gold]) == [("", "case 'c': classification gold must be a declared label")]
    assert metric_problems(metric(path="/other"), [gold]) == [
        ("", "no case has gold for this metric (same path, each and expectation)")]
    multi = metric(kind="multilabel", labels=["x", None, "x"])
    assert metric_problems(multi, [gold]) == [("/labels", "labels must be unique"),
                                              ("/labels", "null is a label only in classification metrics")]
    assert metric_problems(metric(each="/id"), [gold])[0] == ("/each", "each is supported for multilabel metrics only")
    tags = Case.model_validate(case("t", expectation("tags", "/cat", ["a", "a"], comparison="set")))
    assert metric_problems(metric(kind="multilabel"), [tags]) == [
        ("", "case 't': multilabel gold must not repeat a label")]
    either = Case.model_validate(case("e", expectation("cat", "/cat", ["a"], comparison="one_of")))
    assert metric_problems(metric(kind="fields"), [either]) == [
        ("", "case 'e': one_of gold is allowed only for classification metrics")]
