from __future__ import annotations

from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from tests.suites.helpers import case, case_json, expectation, spec_of
from tracegrade.suites import Case
from tracegrade.suites.reading._case_file import case_file_columns
from tracegrade.suites.reading._columns import case_columns
from tracegrade.suites.reading._dataset import LazyCases, SuiteSpec, sha256_json
from tracegrade.suites.reading._models import Manifest

OK = case("c1", expectation("status", "/execution/status", "completed"))


def spec(cases: list[dict[str, Any]], revision: str = "1", name: str = "s") -> SuiteSpec:
    return spec_of(tuple(Case.model_validate(c) for c in cases), name=name, flow="flow", revision=revision)


def test_fingerprint_ignores_spelling_of_defaults() -> None:
    explicit = case("c1", expectation("status", "/execution/status", "completed", comparison="exact",
                                      absent_as_null=False, each=None))
    assert spec([OK]).fingerprint == spec([explicit]).fingerprint
    assert len(spec([OK]).fingerprint) == 64
    assert case_json(spec([OK]).columns, 0)["expectations"][0]["comparison"] == "exact"


def test_fingerprint_changes_with_the_revision_the_name_and_the_gold() -> None:
    base = spec([OK]).fingerprint
    assert spec([OK], revision="2").fingerprint != base
    assert spec([OK], name="other").fingerprint != base
    assert spec([case("c1", expectation("status", "/execution/status", "failed"))]).fingerprint != base


def test_canonical_hashes_ignore_key_order_but_not_types() -> None:
    assert sha256_json({"a": 1, "b": [True]}) == sha256_json({"b": [True], "a": 1})
    assert sha256_json({"a": 1}) != sha256_json({"a": True})


def test_targets() -> None:
    assert spec([OK]).targets == {"target_workflow": "wf", "target_flow": "flow", "target_step": None}


def test_models_are_strict_and_names_are_not_blank() -> None:
    with pytest.raises(ValidationError, match="id"):
        Case.model_validate({**case("c", expectation("a", "/x", 1)), "id": 7})
    with pytest.raises(ValidationError, match="name"):
        Case.model_validate(case("c", expectation("  ", "/x", 1)))
    with pytest.raises(ValidationError, match="absent_as_null"):
        Case.model_validate(case("c", expectation("a", "/x", 1, absent_as_null="yes")))
    with pytest.raises(ValidationError, match="suites"):
        Manifest.model_validate({"name": "d", "revision": "1", "suites": []})


def test_fingerprint_and_digests_are_the_sha256_of_the_canonical_json() -> None:
    """They are put together from each case's parts; the result must be the whole identity's canonical JSON."""
    cases = [case("c1", expectation("status", "/execution/status", "completed")),
             case("c~2", expectation("x", "/x", [1.5, -0.0, {"b": None, "a": "é"}], comparison="set"))]
    built = spec(cases, name="s\u2028", revision="r\"1")
    data = [c.model_dump(mode="json") for c in built.cases]
    assert [case_json(built.columns, n) for n in range(len(data))] == data
    assert built.fingerprint == sha256_json({"suite": built.name, "revision": built.revision, "cases": data})
    assert built.case_digests == tuple((sha256_json(d["input"]), sha256_json(d["expectations"])) for d in data)


def test_cases_loaded_are_made_models_on_first_use_only() -> None:
    raws = [OK, case("c2", expectation("x", "/x", [1], comparison="set"))]
    lazy = LazyCases(raws)
    assert len(lazy) == 2 and lazy._models is None
    assert [c.id for c in lazy] == ["c1", "c2"] and lazy[1].expectations[0].comparison == "set"
    columns = case_columns(raws)
    assert columns is not None
    built = SuiteSpec("s", "wf", None, None, LazyCases(raws), (), "1", columns)
    dumped = spec_of(tuple(Case.model_validate(r) for r in raws))
    assert built.fingerprint == dumped.fingerprint and built.case_digests == dumped.case_digests
    assert case_json(built.columns, 1) == case_json(dumped.columns, 1)
    assert built == dumped and LazyCases(raws) == LazyCases(raws) and LazyCases(raws) != LazyCases(raws[:1])


def test_cases_decoded_from_a_case_file_are_made_models_from_their_records() -> None:
    raws = [OK, case("c2", expectation("x", "/x", [1], comparison="set", absent_as_null=True))]
    decoded = case_file_columns(orjson.dumps(raws))
    assert decoded is not None
    lazy = LazyCases(decoded[1])
    assert len(lazy) == 2 and lazy._models is None
    assert lazy == LazyCases(raws) and lazy.models() == tuple(Case.model_validate(r) for r in raws)
    assert [c.model_fields_set for c in lazy.models()[1].expectations] == [{"name", "path", "expected",
                                                                            "comparison", "absent_as_null"}]
