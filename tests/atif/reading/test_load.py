from __future__ import annotations

import gc
from pathlib import Path

import pytest

from tests.atif.helpers import delegating, trajectory, write
from tracegrade.atif import LoadOptions, iter_nodes, load_trajectories
from tracegrade.atif.reading._collection import read_collection
from tracegrade.atif.reading._records import InputStatus, NodeStatus
from tracegrade.errors import ConfigError, InputError, LimitExceededError

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "atif"


def test_examples_load_with_embedded_file_ref_and_continuation() -> None:
    result = load_trajectories([EXAMPLES])
    assert [r.node_id for r in result.roots] == ["bugfix-session/trajectory.json", "sales-report/trajectory.json"]
    bugfix, sales = result.roots
    assert len(bugfix.steps) == 9 and sum(s.copied for s in bugfix.steps) == 2
    embedded, file_ref = sales.children
    assert embedded.embedded and embedded.trajectory_id == "sql-helper-1" and embedded.parent_step_index == 4
    assert not file_ref.embedded and file_ref.agent_name == "chart-agent" and file_ref.parent_step_index == 5
    assert result.all_valid


def test_jsonl_gives_one_root_per_line(tmp_path: Path) -> None:
    lines = b"\n".join(__import__("orjson").dumps(trajectory(i + 1)) for i in range(3))
    write(tmp_path / "many.jsonl", lines + b"\n\n")
    result = load_trajectories([tmp_path])
    assert [r.node_id for r in result.roots] == ["many.jsonl:1", "many.jsonl:2", "many.jsonl:3"]


def test_jsonl_bad_line_names_the_line(tmp_path: Path) -> None:
    write(tmp_path / "many.jsonl", b'{"x": 1}\n')
    expected = r"many.jsonl:1: not an ATIF trajectory \(no schema_version, agent, steps\): /agent: Field"
    with pytest.raises(InputError, match=expected):
        load_trajectories([tmp_path])


def test_atif_schema_version_alias(tmp_path: Path) -> None:
    doc = trajectory()
    doc["atif_schema_version"] = doc.pop("schema_version")
    write(tmp_path / "a.json", doc)
    assert load_trajectories([tmp_path / "a.json"]).roots[0].trajectory.schema_version == "ATIF-v1.7"  # type: ignore[union-attr]


def test_atif_schema_version_alias_must_agree(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory(atif_schema_version="ATIF-v1.5"))
    with pytest.raises(InputError, match="disagrees"):
        load_trajectories([tmp_path / "a.json"])


def test_all_versions_accepted(tmp_path: Path) -> None:
    for minor in range(9):
        write(tmp_path / f"v{minor}.json", trajectory(schema_version=f"ATIF-v1.{minor}"))
    assert len(load_trajectories([tmp_path]).roots) == 9


def test_tolerant_mode_records_invalid_and_loads_rest(tmp_path: Path) -> None:
    write(tmp_path / "good.json", trajectory())
    write(tmp_path / "bad.json", b"{not json")
    result = load_trajectories([tmp_path], LoadOptions(strict=False))
    assert len(result.roots) == 1
    (bad,) = result.invalid_inputs
    assert bad.code == "invalid_json" and "bad.json:1:2: " in (bad.message or "")


def test_strict_mode_raises_with_path_and_location(tmp_path: Path) -> None:
    doc = trajectory()
    doc["steps"][1]["step_id"] = 5
    write(tmp_path / "bad.json", doc)
    with pytest.raises(InputError, match=r"bad.json: /steps/1/step_id: expected 2"):
        load_trajectories([tmp_path])


def test_depth_limit_marks_nodes_unscored(tmp_path: Path) -> None:
    write(tmp_path / "root.json", delegating({"trajectory_path": "c1.json"}))
    write(tmp_path / "c1.json", delegating({"trajectory_path": "c2.json"}))
    write(tmp_path / "c2.json", trajectory())
    (root,) = load_trajectories([tmp_path], LoadOptions(max_subagent_depth=1)).roots
    nodes = list(iter_nodes(root))
    assert [(n.depth, n.status, n.reason) for n in nodes] == [
        (0, NodeStatus.LOADED, None),
        (1, NodeStatus.LOADED, None),
        (2, NodeStatus.UNSCORED, "depth_limit"),
    ]


def test_repeated_agent_names_are_not_cycles(tmp_path: Path) -> None:
    write(tmp_path / "root.json", delegating({"trajectory_path": "a.json"}, {"trajectory_path": "b.json"}))
    write(tmp_path / "a.json", trajectory())
    write(tmp_path / "b.json", trajectory())
    (root,) = load_trajectories([tmp_path]).roots
    assert [c.status for c in root.children] == [NodeStatus.LOADED, NodeStatus.LOADED]


def test_shared_child_is_not_a_cycle(tmp_path: Path) -> None:
    write(tmp_path / "root.json", delegating({"trajectory_path": "a.json"}, {"trajectory_path": "a.json"}))
    write(tmp_path / "a.json", trajectory())
    (root,) = load_trajectories([tmp_path]).roots
    assert [c.node_id for c in root.children] == ["root.json::a.json", "root.json::a.json#2"]


def test_single_file_input_loads_refs_from_its_folder(tmp_path: Path) -> None:
    write(tmp_path / "root.json", delegating({"trajectory_path": "sub/child.json"}))
    write(tmp_path / "sub/child.json", trajectory())
    (root,) = load_trajectories([tmp_path / "root.json"]).roots
    assert root.children[0].status is NodeStatus.LOADED


def test_unreferenced_embedded_subagents_are_children(tmp_path: Path) -> None:
    sub = trajectory(trajectory_id="s1")
    write(tmp_path / "root.json", trajectory(subagent_trajectories=[sub]))
    (root,) = load_trajectories([tmp_path]).roots
    (child,) = root.children
    assert child.embedded and child.parent_step_index is None and child.location == "/subagent_trajectories/0"


def test_options_are_validated() -> None:
    with pytest.raises(ConfigError, match="max_file_bytes"):
        LoadOptions(max_file_bytes=0)


def test_total_steps_limit(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory(5))
    write(tmp_path / "b.json", trajectory(5))
    with pytest.raises(LimitExceededError, match="max_total_steps=9"):
        load_trajectories([tmp_path], LoadOptions(max_total_steps=9))


def test_file_count_limit(tmp_path: Path) -> None:
    for i in range(3):
        write(tmp_path / f"{i}.json", trajectory())
    with pytest.raises(LimitExceededError, match="max_trajectory_files=2"):
        load_trajectories([tmp_path], LoadOptions(max_trajectory_files=2))


def test_steps_per_trajectory_limit(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory(6))
    result = load_trajectories([tmp_path], LoadOptions(max_steps_per_trajectory=5, strict=False))
    assert result.invalid_inputs[0].code == "too_many_steps"


def test_missing_path_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_trajectories([tmp_path / "nope"])


def test_account_covers_every_input(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory())
    write(tmp_path / "b.json", b"[]")
    write(tmp_path / "notes.txt", b"ignored")
    result = load_trajectories([tmp_path], LoadOptions(strict=False))
    assert sorted((Path(a.path).name, a.status) for a in result.inputs) == [
        ("a.json", InputStatus.LOADED),
        ("b.json", InputStatus.INVALID),
    ]


def test_reports_without_trees_match_and_keep_no_roots(tmp_path: Path) -> None:
    write(tmp_path / "root.json", delegating({"trajectory_path": "child.json"}, continued_trajectory_ref="c.json"))
    write(tmp_path / "child.json", trajectory(3, final_metrics={"total_steps": 9}))
    write(tmp_path / "c.json", trajectory(2))
    write(tmp_path / "bad.json", b"[")
    full = load_trajectories([tmp_path], LoadOptions(strict=False), reports=True)
    slim = load_trajectories([tmp_path], LoadOptions(strict=False), reports=True, trees=False)
    assert slim.roots == () and slim.files == full.files and slim.inputs == full.inputs
    roles = {Path(f.path).name: f.role for f in slim.files if f.valid}
    assert roles == {"c.json": "continuation", "child.json": "subagent", "root.json": "root"}


def test_total_steps_limit_holds_without_trees(tmp_path: Path) -> None:
    for name in ("a", "b"):
        write(tmp_path / f"{name}.json", trajectory(3))
    with pytest.raises(LimitExceededError):
        load_trajectories([tmp_path], LoadOptions(max_total_steps=5), reports=True, trees=False)


def test_gc_is_left_as_found(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory())
    load_trajectories([tmp_path])
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_inputs_are_in_path_order_part_by_part(tmp_path: Path) -> None:
    # as characters "b-c.json" < "b.json" < "b/c.json"; part by part (as Path objects compare) "b/c.json" comes first
    for name in ("b-c.json", "b.json", "b/c.json"):
        write(tmp_path / name, trajectory())
    expected = ["b/c.json", "b-c.json", "b.json"]
    assert [r.node_id for r in load_trajectories([tmp_path]).roots] == expected
    outline = read_collection([tmp_path]).outline
    assert [r.node_id for r in outline.roots] == expected
    assert [Path(a.path).relative_to(tmp_path).as_posix() for a in outline.inputs] == expected
