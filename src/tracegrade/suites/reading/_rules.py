"""Semantic rules of cases and metrics beyond their JSON shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracegrade.suites.reading._comparisons import BuiltinComparison, ScorerRegistry, any_gold
from tracegrade.suites.reading._dataset import Case, Expectation, Metric
from tracegrade.suites.reading._json import canonical, valid_pointer

__all__ = ["case_problems", "matching_expectation", "metric_problems"]

Found = list[tuple[str, str]]


def case_problems(case: Case, registry: ScorerRegistry) -> Found:
    """Problems of one case as ``(place relative to the case, message)``."""
    found: Found = []
    case_input: dict[str, Any] | None = None
    seen: set[str] = set()
    for number, expectation in enumerate(case.expectations):
        name = expectation.name
        if name in seen:
            found.append((f"/expectations/{number}/name", f"duplicate expectation name {name!r}"))
        seen.add(name)
        if not valid_pointer(expectation.path):
            found.append((f"/expectations/{number}/path", "not an RFC 6901 JSON pointer"))
        if expectation.each is not None and not valid_pointer(expectation.each):
            found.append((f"/expectations/{number}/each", "not an RFC 6901 JSON pointer"))
        comparison = registry.get(expectation.comparison)
        if comparison is None:
            found.append((f"/expectations/{number}/comparison", f"unknown comparison {expectation.comparison!r}"))
            continue
        if type(comparison) is BuiltinComparison and comparison.gold_check is any_gold:
            continue  # every value is usable gold
        if case_input is None:
            case_input = dict(case.input)
        problem = comparison.gold_problem(expectation.expected, case_input)
        if problem is not None:
            found.append((f"/expectations/{number}/expected", problem))
    return found


def matching_expectation(metric: Metric, case: Case) -> list[Expectation]:
    """The expectations of ``case`` that ``metric`` measures (valid datasets have at most one)."""
    return [e for e in case.expectations
            if e.path == metric.path and e.each == metric.each
            and (metric.expectation is None or e.name == metric.expectation)]


def metric_problems(metric: Metric, cases: Sequence[Case]) -> Found:
    """Problems of one metric as ``(place relative to the metric, message)``."""
    found = _catalog_problems(metric)
    if not valid_pointer(metric.path):
        found.append(("/path", "not an RFC 6901 JSON pointer"))
    if metric.each is not None and metric.kind != "multilabel":
        found.append(("/each", "each is supported for multilabel metrics only"))
    if found:
        return found
    matched = 0
    labels = {canonical(label) for label in metric.labels}
    for case in cases:
        expectations = matching_expectation(metric, case)
        if len(expectations) > 1:
            found.append(("", f"case {case.id!r} has {len(expectations)} matching expectations; "
                              "name one with `expectation`"))
        elif expectations:
            matched += 1
            problem = _gold_problem(metric, expectations[0], labels)
            if problem is not None:
                found.append(("", f"case {case.id!r}: {problem}"))
    if not matched:
        found.append(("", "no case has gold for this metric (same path, each and expectation)"))
    return found


def _catalog_problems(metric: Metric) -> Found:
    found: Found = []
    if len({canonical(label) for label in metric.labels}) != len(metric.labels):
        found.append(("/labels", "labels must be unique"))
    if metric.kind != "classification" and None in metric.labels:
        found.append(("/labels", "null is a label only in classification metrics"))
    return found


def _gold_problem(metric: Metric, expectation: Expectation, labels: set[bytes]) -> str | None:
    """Why the gold of ``expectation`` does not fit ``metric`` (``labels``: its labels as canonical JSON)."""
    gold = expectation.expected
    if expectation.comparison == "one_of" and metric.kind != "classification":
        return "one_of gold is allowed only for classification metrics"
    if metric.kind == "classification":
        values = gold if expectation.comparison == "one_of" else [gold]
        if any(canonical(value) not in labels for value in values):
            return "classification gold must be a declared label"
    elif metric.kind == "multilabel":
        if not isinstance(gold, list) or any(canonical(value) not in labels for value in gold):
            return "multilabel gold must be an array of declared labels"
        if len({canonical(value) for value in gold}) != len(gold):
            return "multilabel gold must not repeat a label"
    elif not isinstance(gold, dict) or any(canonical(key) not in labels for key in gold):
        return "fields gold must be an object whose keys are declared fields"
    return None
