"""Semantic rules of cases and metrics beyond their JSON shape, checked once per expectation shape."""

from __future__ import annotations

from typing import Any

from tracegrade.suites.reading._columns import CaseColumns, Layout
from tracegrade.suites.reading._comparisons import BuiltinComparison, Comparison, ScorerRegistry, any_gold
from tracegrade.suites.reading._json import canonical, valid_pointer
from tracegrade.suites.reading._models import Metric

__all__ = ["cases_problems", "matching_positions", "metric_problems"]

Found = list[tuple[str, str]]
Step = tuple[int, Found, Comparison | None]
"""A position of a layout with what is wrong with its shape, and the comparison that must check its gold."""


def cases_problems(columns: CaseColumns, registry: ScorerRegistry) -> list[tuple[int, str, str]]:
    """Problems of every case as ``(case number, place relative to the case, message)``, in case order."""
    found: list[tuple[int, str, str]] = []
    steps_of: dict[Layout, list[Step]] = {}
    for number, (layout, golds, case_input) in enumerate(zip(columns.layouts, columns.golds, columns.inputs,
                                                             strict=True)):
        steps = steps_of.get(layout)
        if steps is None:
            steps = steps_of[layout] = _steps(layout, registry)
        for position, wrong, comparison in steps:
            found.extend((number, place, message) for place, message in wrong)
            if comparison is not None:
                problem = comparison.gold_problem(golds[position], case_input)
                if problem is not None:
                    found.append((number, f"/expectations/{position}/expected", problem))
    return found


def _steps(layout: Layout, registry: ScorerRegistry) -> list[Step]:
    """The positions of ``layout`` with a problem of their shape or a gold to check, in order."""
    steps: list[Step] = []
    seen: set[str] = set()
    for number, shape in enumerate(layout.shapes):
        wrong: Found = []
        if shape.name in seen:
            wrong.append((f"/expectations/{number}/name", f"duplicate expectation name {shape.name!r}"))
        seen.add(shape.name)
        if not valid_pointer(shape.path):
            wrong.append((f"/expectations/{number}/path", "not an RFC 6901 JSON pointer"))
        if shape.each is not None and not valid_pointer(shape.each):
            wrong.append((f"/expectations/{number}/each", "not an RFC 6901 JSON pointer"))
        comparison = registry.get(shape.comparison)
        if comparison is None:
            wrong.append((f"/expectations/{number}/comparison", f"unknown comparison {shape.comparison!r}"))
        elif type(comparison) is BuiltinComparison and comparison.gold_check is any_gold:
            comparison = None  # every value is usable gold
        if wrong or comparison is not None:
            steps.append((number, wrong, comparison))
    return steps


def matching_positions(metric: Metric, layout: Layout) -> list[int]:
    """The positions of the expectations ``metric`` measures in ``layout`` (valid datasets have at most one)."""
    return [number for number, shape in enumerate(layout.shapes)
            if shape.path == metric.path and shape.each == metric.each
            and (metric.expectation is None or shape.name == metric.expectation)]


def metric_problems(metric: Metric, columns: CaseColumns) -> Found:
    """Problems of one metric over a suite's cases as ``(place relative to the metric, message)``."""
    found = _catalog_problems(metric)
    if not valid_pointer(metric.path):
        found.append(("/path", "not an RFC 6901 JSON pointer"))
    if metric.each is not None and metric.kind != "multilabel":
        found.append(("/each", "each is supported for multilabel metrics only"))
    if found:
        return found
    matched = 0
    labels = {canonical(label) for label in metric.labels}
    positions_of: dict[Layout, list[int]] = {}
    for case_id, layout, golds in zip(columns.ids, columns.layouts, columns.golds, strict=True):
        positions = positions_of.get(layout)
        if positions is None:
            positions = positions_of[layout] = matching_positions(metric, layout)
        if len(positions) > 1:
            found.append(("", f"case {case_id!r} has {len(positions)} matching expectations; "
                              "name one with `expectation`"))
        elif positions:
            matched += 1
            at = positions[0]
            problem = _gold_problem(metric, layout.shapes[at].comparison, golds[at], labels)
            if problem is not None:
                found.append(("", f"case {case_id!r}: {problem}"))
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


def _gold_problem(metric: Metric, comparison: str, gold: Any, labels: set[bytes]) -> str | None:
    """Why ``gold`` (compared by ``comparison``) does not fit ``metric`` (``labels``: as canonical JSON)."""
    if comparison == "one_of" and metric.kind != "classification":
        return "one_of gold is allowed only for classification metrics"
    if metric.kind == "classification":
        values = gold if comparison == "one_of" else [gold]
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

