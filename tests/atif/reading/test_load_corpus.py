from __future__ import annotations

from pathlib import Path

from tracegrade.atif import LoadOptions, iter_nodes, load_trajectories
from tracegrade.atif.reading._records import InputStatus, NodeStatus


def test_harbor_trials_load_as_seven_trees(shared_corpus: Path) -> None:
    result = load_trajectories([shared_corpus / "atif/harbor/trials"])
    assert len(result.roots) == 7
    assert all(r.node_id.endswith("/trajectory.json") for r in result.roots)


def test_context_summarization_trial_has_three_file_children(shared_corpus: Path) -> None:
    result = load_trajectories([shared_corpus / "atif/harbor/trials/terminus2-context-summarization"])
    (root,) = result.roots
    assert [c.status for c in root.children] == [NodeStatus.LOADED] * 3
    assert [len(c.steps) for c in root.children] == [5, 2, 7]
    assert all(c.depth == 1 and c.parent_step_index is not None for c in root.children)
    assert sum(s.copied for c in root.children for s in c.steps) == 8


def test_linear_history_joins_continuation_and_reports_missing_refs(shared_corpus: Path) -> None:
    result = load_trajectories([shared_corpus / "atif/harbor/trials/terminus2-context-summarization-linear-history"])
    (root,) = result.roots
    assert len(root.steps) == 5 + 8
    assert [s.index for s in root.steps] == list(range(1, 14))
    assert [s.segment for s in root.steps].count(1) == 8
    assert [s.copied for s in root.steps[5:9]] == [True] * 4
    assert root.segments[0].endswith("trajectory.cont-1.json")
    missing = [c for c in root.children if c.status is NodeStatus.INVALID]
    assert [c.reason for c in missing] == ["unresolvable_ref"] * 3
    invalid = [a for a in result.inputs if a.status is InputStatus.INVALID]
    assert len(invalid) == 3 and not result.all_valid


def test_evalhub_fixtures_valid_and_invalid_as_named(shared_corpus: Path) -> None:
    fixtures = shared_corpus / "atif/evalhub-contrib/tests/fixtures"
    names = [
        "trajectory.json",
        "trajectory_v1_7.json",
        "invalid_trajectory.json",
        "malformed_trajectory.json",
        "unsupported_schema_version.json",
    ]
    result = load_trajectories([fixtures / n for n in names], LoadOptions(strict=False))
    status = {Path(a.path).name: (a.status, a.code) for a in result.inputs}
    assert status["trajectory.json"] == (InputStatus.LOADED, None)
    assert status["trajectory_v1_7.json"] == (InputStatus.LOADED, None)
    assert status["invalid_trajectory.json"] == (InputStatus.INVALID, "schema_violation")
    assert status["malformed_trajectory.json"] == (InputStatus.INVALID, "invalid_json")
    assert status["unsupported_schema_version.json"] == (InputStatus.INVALID, "unsupported_version")


def test_failure_corpus_loads(shared_corpus: Path) -> None:
    folder = shared_corpus / "atif/evalhub-contrib/tests/fixtures/failure_corpus"
    result = load_trajectories(sorted(folder.glob("*-[12].json")))
    assert len(result.roots) == 8
    assert sum(len(n.steps) for r in result.roots for n in iter_nodes(r)) == 8
