from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from pydantic_core import PydanticUndefined

from tests.suites.helpers import case, case_json, expectation
from tracegrade.suites import Case
from tracegrade.suites.reading._columns import case_columns
from tracegrade.suites.reading._json import canonical
from tracegrade.suites.reading._models import CaseInput, Expectation

OK = case("c1", expectation("status", "/execution/status", "completed"))
RAWS = [OK, case("c2", expectation("x", "/x", {"k": [1, 2.5, None]}, comparison="set", each="/id",
                                   absent_as_null=True), expectation("y", "/y", "é\u2028", comparison="text")),
        {"id": "c3", "input": {"payload": None, "metadata": {"m": 1}},
         "expectations": [{"name": "n", "path": "", "expected": -0.0}]},
        case("c4", expectation("status", "/execution/status", "failed", comparison="exact", each=None,
                               absent_as_null=False)),
        case("c5", expectation("50%s", "/%d~1%%", "%s %%", comparison="text"))]


def test_a_case_as_columns_is_what_dumping_its_model_gives() -> None:
    assert [(n, f.default) for n, f in Expectation.model_fields.items()] == [  # what a shape spells out
        ("name", PydanticUndefined), ("path", PydanticUndefined), ("expected", PydanticUndefined),
        ("comparison", "exact"), ("each", None), ("absent_as_null", False)]
    assert list(Case.model_fields) == ["id", "input", "expectations"]
    assert [(n, f.default) for n, f in CaseInput.model_fields.items()] == [
        ("payload", PydanticUndefined), ("metadata", None)]
    columns = case_columns(RAWS)
    assert columns is not None and len(columns.ids) == 5
    for number, raw in enumerate(RAWS):
        dumped = Case.model_validate(raw).model_dump(mode="json")
        assert case_json(columns, number) == dumped
        assert list(case_json(columns, number)["expectations"][0]) == list(Expectation.model_fields)
        assert columns.expectations_canonical(number) == canonical(dumped["expectations"])
    assert columns.expectation_count() == 6 and columns.comparisons() == {"exact", "set", "text"}


def test_cases_with_the_same_checks_share_shapes_and_a_layout() -> None:
    columns = case_columns([case(f"c{i}", expectation("a", "/a", i), expectation("b", "/b", [i], comparison="set"))
                            for i in range(3)] + [OK])
    assert columns is not None
    assert columns.layouts[0] is columns.layouts[1] is columns.layouts[2] is not columns.layouts[3]
    assert columns.golds == ((0, [0]), (1, [1]), (2, [2]), ("completed",))
    spelt_out = case_columns([OK, RAWS[3]])  # the same shape spelt two ways
    assert spelt_out is not None and spelt_out.layouts[0].shapes[0] is spelt_out.layouts[1].shapes[0]


GOOD = expectation("a", "/x", 1, absent_as_null=True)
INVALID: list[Any] = [
    {**OK, "id": 7}, {**OK, "id": ""}, {**OK, "id": "x" * 513}, {**OK, "extra": 1}, {"id": "c", "expectations": []},
    {**OK, "input": {"payload": 1, "other": 2}}, {**OK, "input": {"metadata": None}},
    {**OK, "input": {"payload": 1, "metadata": [1]}}, {**OK, "input": []}, {**OK, "expectations": []},
    {**OK, "expectations": {"a": 1}}, {**OK, "expectations": [GOOD] * 1025}, "c.json", 3,
    case("c", 5), case("c", "name"), case("c", ["a"]), case("c", {**GOOD, "weight": 1}),
    case("c", {"name": "a", "path": "/x"}),
    case("c", {**GOOD, "name": "  "}), case("c", {**GOOD, "name": 1}), case("c", {**GOOD, "name": ["a"]}),
    case("c", {**GOOD, "absent_as_null": 1}), case("c", {**GOOD, "absent_as_null": 1.0}),
    case("c", {**GOOD, "absent_as_null": "yes"}), case("c", {**GOOD, "comparison": ""}),
    case("c", {**GOOD, "each": 5}), case("c", {**GOOD, "path": None}), case("c", {**GOOD, "name": "n" * 257}),
]


@pytest.mark.parametrize("bad", INVALID, ids=range(len(INVALID)))
def test_a_case_the_models_refuse_is_never_read_as_columns(bad: Any) -> None:
    """Even after a valid case spelt alike (``1 == True`` in Python), so the models always name the problem."""
    with pytest.raises(ValidationError):
        Case.model_validate(bad)
    assert case_columns([case("ok", GOOD), bad]) is None
