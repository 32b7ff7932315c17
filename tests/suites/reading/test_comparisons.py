from __future__ import annotations

import pytest

from tracegrade.errors import ConfigError
from tracegrade.suites import CustomScorer, ScorerRegistry
from tracegrade.suites.reading._comparisons import ProjectionError, matches, project

INPUT = {"payload": {"message": "Cancel renewal for account C-1."}}
SPAN = {"input_path": "/payload/message", "required": [0, 14], "allowed": [0, 29]}


def test_exact_is_type_sensitive_and_ordered() -> None:
    assert matches("exact", {"a": [1, 2]}, {"a": [1, 2]}, INPUT)
    assert not matches("exact", True, 1, INPUT)
    assert not matches("exact", [2, 1], [1, 2], INPUT)


def test_set_ignores_order_and_duplicates_at_top_level_only() -> None:
    assert matches("set", [2, 1, 1], [1, 2], INPUT)
    assert not matches("set", [[2, 1]], [[1, 2]], INPUT)
    assert not matches("set", "12", [1, 2], INPUT)


def test_one_of_text_and_contains() -> None:
    assert matches("one_of", "b", ["a", "b"], INPUT)
    assert matches("text", "  Hello\n WORLD ", "hello world", INPUT)
    assert matches("contains", "We will REFUND  you", "refund you", INPUT)
    assert not matches("contains", 5, "5", INPUT)


@pytest.mark.parametrize(("actual", "expected"), [
    ("Cancel renewal", True), ("Cancel renewal for account", True), ("Cancel renewal for account C-1", False),
    ("Cancel", False),
    ("cancel renewal", False), ("renewal for", False), ("", False), (None, False)])
def test_source_span_needs_a_verbatim_occurrence_covering_required(actual: object, expected: bool) -> None:
    assert matches("source_span", actual, SPAN, INPUT) is expected


def test_each_projects_every_item_or_fails() -> None:
    assert project([{"id": 1}, {"id": 2}], ("id",)) == [1, 2]
    with pytest.raises(ProjectionError, match="item_lacks_member"):
        project([{"id": 1}, {}], ("id",))
    with pytest.raises(ProjectionError, match="not_an_array"):
        project({"id": 1}, ("id",))


def test_registry_refuses_builtin_and_duplicate_names() -> None:
    async def fn(actual: object, expected: object) -> bool:
        return True

    with pytest.raises(ConfigError):
        ScorerRegistry([CustomScorer("exact", "1", fn)])
    with pytest.raises(ConfigError):
        ScorerRegistry([CustomScorer("near", "1", fn), CustomScorer("near", "2", fn)])
    assert "near" in ScorerRegistry([CustomScorer("near", "1", fn)]).names()
