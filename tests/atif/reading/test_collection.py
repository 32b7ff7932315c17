from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.atif.helpers import delegating, trajectory, write
from tracegrade.atif import LoadOptions, iter_nodes, load_trajectories
from tracegrade.atif.reading._collection import Collection, read_collection
from tracegrade.errors import InputError

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "atif"


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """JSONL roots, a file-referenced subagent, a continuation, a cycle and an invalid file."""
    lines = b"\n".join(orjson.dumps(trajectory(i + 1)) for i in range(3))
    write(tmp_path / "many.jsonl", lines + b"\n")
    write(tmp_path / "p.json", delegating({"trajectory_path": "sub/c.json"}, continued_trajectory_ref="p2.json"))
    write(tmp_path / "p2.json", trajectory(3))
    write(tmp_path / "sub/c.json", trajectory(2))
    write(tmp_path / "x.json", delegating({"trajectory_path": "y.json"}))
    write(tmp_path / "y.json", delegating({"trajectory_path": "x.json"}))
    write(tmp_path / "bad.json", b"{")
    return tmp_path


@pytest.mark.parametrize("paths", [[EXAMPLES], "mixed"])
def test_the_trees_read_root_by_root_are_the_trees_loaded_at_once(paths: list[Path] | str, mixed: Path) -> None:
    given = [mixed] if paths == "mixed" else paths
    options = LoadOptions(strict=False)
    loaded = load_trajectories(given, options)
    collection = read_collection(given, options)
    assert collection.outline.inputs == loaded.inputs
    assert [r.node_id for r in collection.outline.roots] == [r.node_id for r in loaded.roots]
    outline = [n for r in collection.outline.roots for n in iter_nodes(r)]
    assert all(not n.steps and n.trajectory is None for n in outline)  # the outline keeps no steps and no models
    assert [(n.node_id, n.status, n.source_path, n.segments) for n in outline] == [
        (n.node_id, n.status, n.source_path, n.segments) for r in loaded.roots for n in iter_nodes(r)]
    assert tuple(collection.trees(collection.outline.roots)) == loaded.roots
    assert [collection.steps(r) for r in collection.outline.roots] == [
        Collection.of(loaded).steps(r) for r in loaded.roots
    ]


def test_a_subset_of_the_roots_is_read_in_the_outline_order(mixed: Path) -> None:
    collection = read_collection([mixed], LoadOptions(strict=False))
    wanted = [r for r in collection.outline.roots if r.node_id in {"many.jsonl:2", "p.json"}]
    assert [t.node_id for t in collection.trees(wanted)] == ["many.jsonl:2", "p.json"]
    assert [len(t.steps) for t in collection.trees(wanted)] == [2, 5]


def test_a_root_that_changed_since_the_outline_was_read_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory(2))
    collection = read_collection([tmp_path])
    write(tmp_path / "a.json", b"{")
    with pytest.raises(InputError, match=r"a.json: changed while the job ran") as caught:
        list(collection.trees(collection.outline.roots))
    assert caught.value.code == "input_changed"


def test_a_depth_limited_subagent_does_not_count_among_the_steps_to_score(tmp_path: Path) -> None:
    write(tmp_path / "p.json", delegating({"trajectory_path": "c.json"}))
    write(tmp_path / "c.json", trajectory(4))
    collection = read_collection([tmp_path / "p.json"], LoadOptions(max_subagent_depth=0))
    (root,) = collection.outline.roots
    assert collection.steps(root) == 2


def test_a_root_file_released_from_the_outline_is_read_again_when_a_later_file_reaches_it(tmp_path: Path) -> None:
    # Given as two files, c.json and z.json are both roots; c.json is done (and its documents released) first,
    # then z.json reaches it through b.json, which is not an input: read again, counted and accounted once.
    write(tmp_path / "c.json", trajectory(2))
    write(tmp_path / "z.json", delegating({"trajectory_path": "b.json"}))
    write(tmp_path / "b.json", delegating({"trajectory_path": "c.json"}))
    given = [tmp_path / "c.json", tmp_path / "z.json"]
    loaded = load_trajectories(given)
    collection = read_collection(given, LoadOptions(max_trajectory_files=3))
    assert collection.outline.inputs == loaded.inputs
    assert sorted(Path(a.path).name for a in collection.outline.inputs) == ["b.json", "c.json", "z.json"]
    assert [[n.node_id for n in iter_nodes(r)] for r in collection.outline.roots] == [
        ["c.json"], ["z.json", "z.json::b.json", "z.json::b.json::c.json"]
    ]
    assert tuple(collection.trees(collection.outline.roots)) == loaded.roots


def _agent_only(**extra: object) -> dict[str, object]:
    """A trajectory whose steps are all the agent's (no user step): what an import without a task mapping leaves."""
    return {"schema_version": "ATIF-v1.6", "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": 1, "source": "agent", "message": "working"}], **extra}


def test_the_roots_without_a_task_are_known_from_the_outline_as_from_the_trees(tmp_path: Path) -> None:
    write(tmp_path / "asked.json", trajectory(2))
    write(tmp_path / "declared.json", _agent_only(extra={"task_instruction": "Fix the bug"}))
    write(tmp_path / "none.json", _agent_only())
    write(tmp_path / "blank.json", _agent_only(extra={"task_instruction": "  "}))
    write(tmp_path / "later.json", _agent_only(continued_trajectory_ref="later-2.json"))  # the user speaks in part 2
    write(tmp_path / "later-2.json", trajectory(2))
    lines = b"\n".join(orjson.dumps(doc) for doc in (trajectory(1), _agent_only()))
    write(tmp_path / "many.jsonl", lines + b"\n")
    collection = read_collection([tmp_path])
    roots = collection.outline.roots
    expected = ["blank.json", "many.jsonl:2", "none.json"]
    assert [r.node_id for r in collection.without_task(roots)] == expected
    loaded = Collection.of(load_trajectories([tmp_path]))
    assert [r.node_id for r in loaded.without_task(loaded.outline.roots)] == expected
