import json
import re
from pathlib import Path

import pytest

from tracegrade.atif.criteria._reference import REFERENCE_REGISTRY_MAX_BYTES, load_reference_rubric
from tracegrade.atif.criteria._resolver import build_resolver
from tracegrade.atif.criteria._sources import CriteriaFailure, CriteriaFailureCode, ResolvedCriteria
from tracegrade.errors import ConfigError, InputError

CRITERIA = [{"name": "correctness", "description": "Matches the reference", "weight": 1}]


def write_registry(tmp_path: Path, references: dict, **rubric) -> Path:
    path = tmp_path / "registry.json"
    entry = {"criteria": CRITERIA, "references": references, **rubric}
    path.write_text(json.dumps({"version": 3, "rubrics": {"default": entry}}))
    return path


def reference_params(path: Path, **extra) -> dict:
    return {"scoring_mode": "reference", "reference_registry_path": str(path), **extra}


ALL_REFS = {"explicit": {"answer": "A"}, "traj-1": {"answer": "B"}, "default": {"answer": "C"}}


@pytest.mark.parametrize(
    ("extra", "trajectory_id", "references", "expected"),
    [
        ({"reference_id": "explicit"}, "traj-1", ALL_REFS, "explicit"),
        (None, "traj-1", ALL_REFS, "traj-1"),
        (None, "other", ALL_REFS, "default"),
        (None, None, ALL_REFS, "default"),
    ],
)
async def test_reference_selection_order(tmp_path, make_node, extra, trajectory_id, references, expected):
    resolver = build_resolver(reference_params(write_registry(tmp_path, references)))
    resolved = await resolver.resolve(make_node(extra=extra, trajectory_id=trajectory_id))
    assert isinstance(resolved, ResolvedCriteria)
    assert resolved.reference_id == expected
    assert resolved.reference_answer == references[expected]["answer"]
    assert resolved.provenance()["reference_id"] == expected


async def test_no_reference_fails_the_node_explicitly(tmp_path, make_node):
    resolver = build_resolver(reference_params(write_registry(tmp_path, {"t1": {"answer": "A"}})))
    failure = await resolver.resolve(make_node(trajectory_id="other"))
    assert isinstance(failure, CriteriaFailure)
    assert failure.code == CriteriaFailureCode.REFERENCE_MISSING == "reference_missing"
    assert "'other'" in failure.message


async def test_unknown_explicit_reference_id_does_not_fall_back(tmp_path, make_node):
    resolver = build_resolver(reference_params(write_registry(tmp_path, ALL_REFS)))
    failure = await resolver.resolve(make_node(extra={"reference_id": "nope"}, trajectory_id="traj-1"))
    assert isinstance(failure, CriteriaFailure)
    assert failure.code == "reference_missing"
    assert "extra.reference_id 'nope'" in failure.message


async def test_provenance_names_registry_version_and_hash(tmp_path, make_node):
    path = write_registry(tmp_path, ALL_REFS)
    resolved = await build_resolver(reference_params(path)).resolve(make_node())
    provenance = resolved.provenance()
    assert provenance["reference_registry_version"] == "3"
    assert len(provenance["reference_registry_sha256"]) == 64
    assert provenance["reference_rubric"] == "default"
    assert "C" not in provenance.values()  # the answer itself is not persisted, only its hash
    assert len(provenance["reference_answer_sha256"]) == 64


def test_invalid_json_is_an_input_error_naming_file_and_place(tmp_path):
    path = tmp_path / "registry.json"
    path.write_text('{"rubrics": {\n  "default": {,}\n}}')
    with pytest.raises(
        InputError,
        match=rf"reference_registry_path: {re.escape(str(path))}: line 2, column 15: unexpected character, "
              "expected a string key",
    ):
        load_reference_rubric(str(path), "default")


def test_unknown_rubric_lists_available_ones(tmp_path):
    path = write_registry(tmp_path, ALL_REFS)
    with pytest.raises(ConfigError, match=r"reference_rubric: 'missing' .* available rubrics: default"):
        build_resolver(reference_params(path, reference_rubric="missing"))


@pytest.mark.parametrize(
    ("references", "match"),
    [
        ({"a": {"answer": ""}}, "answer must not be empty"),
        ({"a": {"answer": 5}}, "answer must be a string"),
        ({"a": {"answer": "x", "extra": 1}}, "unknown key"),
        ({"a": "x"}, "must be an object with an answer"),
        ([], "references must be an object"),
    ],
)
def test_bad_references_are_refused(tmp_path, references, match):
    with pytest.raises(ConfigError, match=match):
        load_reference_rubric(write_registry(tmp_path, references), "default")


def test_bad_registry_criteria_name_the_file_and_rubric(tmp_path):
    path = tmp_path / "registry.json"
    entry = {"criteria": [{"name": "x", "description": "d", "weight": 0}], "references": {}}
    path.write_text(json.dumps({"rubrics": {"default": entry}}))
    with pytest.raises(ConfigError, match=r"rubrics.default: criterion 'x' weight must be a positive finite"):
        load_reference_rubric(path, "default")


def test_registry_over_10_mib_is_refused(tmp_path):
    path = tmp_path / "registry.json"
    path.write_bytes(b" " * (REFERENCE_REGISTRY_MAX_BYTES + 1))
    with pytest.raises(ConfigError, match="10,485,760-byte limit"):
        load_reference_rubric(path, "default")


def test_large_registry_under_the_limit_loads(tmp_path):
    references = {f"r{i}": {"answer": "x" * 1000} for i in range(1000)}  # ~1 MB, far above 16 KiB
    assert len(load_reference_rubric(write_registry(tmp_path, references), "default").answers) == 1000


def test_reference_mode_requires_registry_path(fake_derive):
    with pytest.raises(ConfigError, match="reference_registry_path: required"):
        build_resolver({"scoring_mode": "reference"}, derive=fake_derive, template_hash="t")
    assert fake_derive.calls == []
