from __future__ import annotations

from typing import Any

from tests.suites.helpers import case, expectation
from tracegrade.suites import Case, ScorerRegistry
from tracegrade.suites.reading._columns import CaseColumns, case_columns
from tracegrade.suites.reading._models import Metric
from tracegrade.suites.reading._rules import cases_problems, matching_positions, metric_problems


def problems_of(*expectations: dict[str, Any]) -> list[tuple[str, str]]:
    columns = case_columns([Case.model_validate(case("c", *expectations)).model_dump(mode="json")])
    assert columns is not None
    return [(place, message) for _, place, message in cases_problems(columns, ScorerRegistry())]


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


def columns(*cases: dict[str, Any]) -> CaseColumns:
    read = case_columns(list(cases))
    assert read is not None
    return read


def metric(**extra: Any) -> Metric:
    return Metric.model_validate({"name": "m", "path": "/cat", "kind": "classification", "labels": ["a", "b"],
                                  **extra})


def test_a_metric_measures_the_expectation_at_its_path_and_name() -> None:
    gold = columns(case("c", expectation("one", "/cat", "a"), expectation("two", "/cat", "b")))
    assert matching_positions(metric(), gold.layouts[0]) == [0, 1]
    assert matching_positions(metric(expectation="two"), gold.layouts[0]) == [1]
    assert metric_problems(metric(), gold) == [
        ("", "case 'c' has 2 matching expectations; name one with `expectation`"),
        ("", "no case has gold for this metric (same path, each and expectation)")]
    assert metric_problems(metric(expectation="two"), gold) == []


def test_metric_gold_must_fit_the_catalog_and_kind() -> None:
    gold = columns(case("c", expectation("cat", "/cat", "x")))
    assert metric_problems(metric(), gold) == [("", "case 'c': classification gold must be a declared label")]
    assert metric_problems(metric(path="/other"), gold) == [
        ("", "no case has gold for this metric (same path, each and expectation)")]
    multi = metric(kind="multilabel", labels=["x", None, "x"])
    assert metric_problems(multi, gold) == [("/labels", "labels must be unique"),
                                              ("/labels", "null is a label only in classification metrics")]
    assert metric_problems(metric(each="/id"), gold)[0] == ("/each", "each is supported for multilabel metrics only")
    tags = columns(case("t", expectation("tags", "/cat", ["a", "a"], comparison="set")))
    assert metric_problems(metric(kind="multilabel"), tags) == [
        ("", "case 't': multilabel gold must not repeat a label")]
    either = columns(case("e", expectation("cat", "/cat", ["a"], comparison="one_of")))
    assert metric_problems(metric(kind="fields"), either) == [
        ("", "case 'e': one_of gold is allowed only for classification metrics")]


def test_the_rules_of_a_shape_are_checked_for_every_case_that_has_it() -> None:
    """Cases sharing a layout share its rules, yet each case's gold is checked and each problem placed."""
    good, bad = expectation("t", "/t", "x", comparison="text"), expectation("t", "/t", 3, comparison="text")
    found = cases_problems(columns(case("a", good), case("b", bad), case("c", good), case("d", bad),
                                   case("e", expectation("u", "u", 1), expectation("u", "/v", 1))), ScorerRegistry())
    assert found == [(1, "/expectations/0/expected", "text gold must be a string"),
                     (3, "/expectations/0/expected", "text gold must be a string"),
                     (4, "/expectations/0/path", "not an RFC 6901 JSON pointer"),
                     (4, "/expectations/1/name", "duplicate expectation name 'u'")]
