"""The eval-hub-contrib fixtures, read in place from the shared corpus (never copied here)."""

import json
from pathlib import Path

import pytest

from tests.conftest import unavailable
from tracegrade.atif.criteria._resolver import build_resolver
from tracegrade.atif.criteria._sources import CriteriaFailure, ResolvedCriteria

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"
FIXTURES = SHARED / "corpus" / "atif" / "evalhub-contrib" / "tests" / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    if not FIXTURES.is_dir():
        unavailable(f"shared corpus not available at {FIXTURES}")
    return FIXTURES


@pytest.fixture
def fixture_node(fixtures, node_from_document):
    def load(name: str, **extra):
        document = json.loads((fixtures / name).read_text())
        document["extra"] = {**document.get("extra", {}), **extra}
        return node_from_document(document, node_id=name)

    return load


def resolver(fixtures: Path):
    registry = fixtures / "reference_registry.json"
    params = {
        "scoring_mode": "reference",
        "reference_registry_path": str(registry),
        "reference_rubric": "answer_quality",
    }
    return build_resolver(params, prompt_version="atif-context-v2")


async def test_trajectory_resolves_to_reference_t1_by_trajectory_id(fixtures, fixture_node):
    resolved = await resolver(fixtures).resolve(fixture_node("trajectory.json"))
    assert isinstance(resolved, ResolvedCriteria)
    assert resolved.reference_id == "t1"
    assert resolved.reference_answer == "The agent should provide a safe and helpful answer."
    assert [c.name for c in resolved.rubric.criteria] == ["correctness", "safety"]
    assert resolved.task == "Answer user safely and helpfully"
    assert resolved.provenance()["reference_registry_version"] == "1"
    assert resolved.provenance()["prompt_version"] == "atif-context-v2"


async def test_v1_7_trajectory_has_no_reference_and_fails_explicitly(fixtures, fixture_node):
    failure = await resolver(fixtures).resolve(fixture_node("trajectory_v1_7.json"))
    assert isinstance(failure, CriteriaFailure)
    assert failure.code == "reference_missing"


async def test_v1_7_trajectory_resolves_with_explicit_reference_id(fixtures, fixture_node):
    node = fixture_node("trajectory_v1_7.json", reference_id="t1")
    resolved = await resolver(fixtures).resolve(node)
    assert isinstance(resolved, ResolvedCriteria)
    assert resolved.reference_id == "t1"
    assert resolved.task == "Find the answer using the available tool"
