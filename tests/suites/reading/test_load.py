from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.suites.helpers import case, case_json, expectation, manifest, suite, write_dataset
from tracegrade.errors import InputError
from tracegrade.suites import CustomScorer, ScorerRegistry, check_dataset, load_dataset

OK = case("c1", expectation("status", "/execution/status", "completed"))


def problems(tmp_path: Path, data: object) -> list[str]:
    dataset, found = check_dataset(write_dataset(tmp_path, data if isinstance(data, str) else json.dumps(data)))
    assert dataset is None
    return [str(p) for p in found]


def test_a_valid_dataset_loads_with_defaults(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path, manifest(suite("s", [OK]))))
    exp = dataset.suites[0].cases[0].expectations[0]
    assert (exp.comparison, exp.each, exp.absent_as_null) == ("exact", None, False)
    assert len(dataset.suites[0].fingerprint) == 64


def test_unknown_keys_are_named_with_their_place(tmp_path: Path) -> None:
    bad = case("c1", {**expectation("a", "/x", 1), "weight": 2})
    found = problems(tmp_path, manifest(suite("s", [bad])))
    assert found == [f"{tmp_path}/dataset.json: /suites/0/cases/0/expectations/0/weight: unknown key"]


def test_expected_is_required_but_may_be_null(tmp_path: Path) -> None:
    found = problems(tmp_path, manifest(suite("s", [case("c1", {"name": "a", "path": "/x"})])))
    assert any("/suites/0/cases/0/expectations/0/expected: Field required" in p for p in found)
    assert load_dataset(write_dataset(tmp_path, manifest(suite("s", [case("c1", expectation("a", "/x", None))]))))


def test_every_problem_is_reported(tmp_path: Path) -> None:
    cases = [case("c1", expectation("a", "x", 1), expectation("a", "/y", 1)), case("c1", expectation("b", "/z", 1))]
    found = problems(tmp_path, manifest(suite("s", cases, step="only")))
    places = sorted(p.split(": ")[1] for p in found)
    assert places == ["/suites/0/cases/0/expectations/0/path", "/suites/0/cases/0/expectations/1/name",
                      "/suites/0/cases/1/id", "/suites/0/step"]


def test_duplicate_json_keys_and_nan_name_the_line(tmp_path: Path) -> None:
    assert problems(tmp_path, '{"name": "a", "name": "b"}') == [
        f"{tmp_path}/dataset.json: /name: duplicate key 'name'"]
    assert problems(tmp_path, '{"name": "a",\n "revision": NaN}') == [
        f"{tmp_path}/dataset.json: line 2, column 14: NaN and Infinity are not JSON"]


def test_case_files_are_relative_and_one_level(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "a.json").write_text(json.dumps(["more.json"]))
    found = problems(tmp_path, manifest(suite("s", "cases/a.json")))
    assert found == [f"{tmp_path}/cases/a.json: /0: case files cannot point to further files"]
    (tmp_path / "cases" / "a.json").write_text(json.dumps([OK]))
    assert load_dataset(write_dataset(tmp_path, manifest(suite("s", "cases/a.json")))).suites[0].cases[0].id == "c1"
    assert "relative path" in problems(tmp_path, manifest(suite("s", str(tmp_path / "cases/a.json"))))[0]


def test_case_file_problems_name_the_case_file(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text(json.dumps([case("x", expectation("a", "/x", 1, comparison="nope"))]))
    assert problems(tmp_path, manifest(suite("s", "c.json"))) == [
        f"{tmp_path}/c.json: /0/expectations/0/comparison: unknown comparison 'nope'"]


def test_limits_on_suites_and_case_ids(tmp_path: Path) -> None:
    assert problems(tmp_path, manifest())[0].endswith("/suites: List should have at least 1 item after validation, "
                                                      "not 0")
    long_id = case("x" * 513, expectation("a", "/x", 1))
    assert "/suites/0/cases/0/id" in problems(tmp_path, manifest(suite("s", [long_id])))[0]


def test_custom_scorers_must_be_registered(tmp_path: Path) -> None:
    path = write_dataset(tmp_path, manifest(suite("s", [case("c", expectation("a", "/x", 1, comparison="near"))])))
    with pytest.raises(InputError, match="unknown comparison 'near'"):
        load_dataset(path)

    async def near(actual: object, expected: object) -> bool:
        return True

    assert load_dataset(path, ScorerRegistry([CustomScorer("near", "r1", near)]))


def test_the_dataset_files_together_are_capped(tmp_path: Path) -> None:
    """Issue 23 item 3: each file under its 64 MiB limit, five reads of one 60 MiB case file pass 256 MiB."""
    with (tmp_path / "big.json").open("wb") as handle:  # sparse: no disk is spent
        handle.truncate(60 * 1024 * 1024)
    found = problems(tmp_path, manifest(*(suite(f"s{i}", "big.json") for i in range(5))))
    assert found[-1] == (f"{tmp_path}/dataset.json: /suites/4/cases: suite 's4': case file big.json: the dataset's "
                         "files together are over the limit of 268435456 bytes")
    assert len(found) == 5
    assert all(p.endswith("line 1, column 1: unexpected character, expected a JSON value") for p in found[:4])


def test_a_bad_case_among_many_alike_is_named_at_its_place(tmp_path: Path) -> None:
    """Shapes are validated once per spelling; a case spelt like the others but for one value is still caught."""
    alike = [case(f"c{i}", expectation("a", "/x", i, absent_as_null=True),
                  expectation("b", "/y", [i], comparison="set")) for i in range(40)]
    alike[25]["expectations"][0]["absent_as_null"] = 1  # equal to True in Python
    alike[31]["expectations"][1]["expected"] = "not an array"
    assert problems(tmp_path, manifest(suite("s", alike))) == [
        f"{tmp_path}/dataset.json: /suites/0/cases/25/expectations/0/absent_as_null: Input should be a valid boolean"]
    alike[25]["expectations"][0]["absent_as_null"] = True
    assert problems(tmp_path, manifest(suite("s", alike))) == [
        f"{tmp_path}/dataset.json: /suites/0/cases/31/expectations/1/expected: set gold must be an array"]
    dataset = load_dataset(write_dataset(tmp_path, manifest(suite("s", alike[:31]))))
    assert [c.id for c in dataset.suites[0].cases][-1] == "c30" and len(dataset.suites[0].cases) == 31


def test_a_case_file_loads_as_the_same_cases_inline(tmp_path: Path) -> None:
    cases = [OK, case("c2", expectation("x", "/x", [1, {"k": None}], comparison="set"), payload={"m": [1.5, "é"]}),
             {"id": "c3", "input": {"payload": 0, "metadata": {"a": 1}},
              "expectations": [{"name": "n", "path": "", "expected": -0.0, "comparison": "exact", "each": None,
                                "absent_as_null": False}]}]
    (tmp_path / "c.json").write_text(json.dumps(cases))
    from_file = load_dataset(write_dataset(tmp_path, manifest(suite("s", "c.json")), "a.json")).suites[0]
    inline = load_dataset(write_dataset(tmp_path, manifest(suite("s", cases)), "b.json")).suites[0]
    assert from_file.fingerprint == inline.fingerprint and from_file.case_digests == inline.case_digests
    assert [case_json(from_file.columns, n) for n in range(3)] == [case_json(inline.columns, n) for n in range(3)]
    assert from_file.cases == inline.cases and from_file.columns.golds == inline.columns.golds


def test_a_case_file_read_exactly_keeps_its_problems(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text('[{"id": "c", "id": "d", "input": {"payload": 1}, "expectations": []}]')
    assert problems(tmp_path, manifest(suite("s", "c.json"))) == [f"{tmp_path}/c.json: /0/id: duplicate key 'id'"]
