"""Finished roots' records kept in an unnamed file and read back in root order (real scored records)."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import orjson
import pytest

from tests.atif.delayed import marker_judge
from tests.atif.scripted import CUSTOM, trajectory, write
from tracegrade.atif import JobContext, parse_parameters, score_paths
from tracegrade.atif.scoring import NodeResult
from tracegrade.atif.scoring._records import StepResult
from tracegrade.atif.scoring._spool import ListedNodes, NodeRecords, NodeSpool, SpooledNodes


@pytest.fixture
def nodes(tmp_path: Path) -> list[NodeResult]:
    """Records of three roots, the second with a subagent, scored by the in-process judge."""
    write(tmp_path / "in/a.json", trajectory("SCORE:0.9", "SCORE:0.2 CAT:context_loss"))
    write(tmp_path / "in/b.json", trajectory("SCORE:0.8", "SCORE:0.4", refs={2: [{"trajectory_path": "c.json"}]}))
    write(tmp_path / "in/c.json", trajectory("SCORE:0.6"))
    write(tmp_path / "in/d.json", trajectory("SCORE:0.7"))
    options, criteria = parse_parameters(CUSTOM)
    results = asyncio.run(score_paths([tmp_path / "in"], options, criteria, marker_judge(), JobContext("s")))
    return list(results.nodes)


def by_root(nodes: list[NodeResult]) -> list[list[NodeResult]]:
    roots: dict[str, list[NodeResult]] = {}
    for node in nodes:
        roots.setdefault(node.root_id, []).append(node)
    return list(roots.values())


def test_records_come_back_in_root_order_whatever_order_they_finished(nodes: list[NodeResult], tmp_path: Path) -> None:
    spool = NodeSpool(tmp_path)
    for index, root in reversed(list(enumerate(by_root(nodes)))):
        spool.add(index, root)
    spooled = spool.nodes()
    assert [n.node_id for n in spooled] == ["a.json", "b.json", "b.json::c.json", "d.json"]
    assert list(spooled) == nodes and spooled == nodes
    assert len(spooled) == 4
    assert spooled[2] == nodes[2] and spooled[-1] == nodes[-1] and spooled[1:3] == nodes[1:3]
    with pytest.raises(IndexError):
        spooled[4]
    assert spooled + nodes[:1] == [*nodes, nodes[0]] and nodes[:1] + spooled == [nodes[0], *nodes]
    assert [value for root in spooled.raw() for value in root] == [n.model_dump(mode="json") for n in nodes]


def test_the_file_has_no_name_in_its_folder(nodes: list[NodeResult], tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    spool = NodeSpool(folder)
    spool.add(0, nodes[:1])
    assert list(folder.iterdir()) == []  # nothing to clean up after a kill
    assert list(spool.nodes()) == nodes[:1]


def test_brief_copies_keep_the_numbers_and_drop_what_only_reviewers_read(nodes: list[NodeResult]) -> None:
    spool = NodeSpool()
    for index, root in enumerate(by_root(nodes)):
        spool.add(index, root)
    spooled = spool.nodes()
    brief = spooled.brief
    assert all(n.criteria is None for n in brief) and any(n.criteria for n in nodes)
    assert all(s.content is None and s.categorization_rationale is None for n in brief for s in n.steps)
    assert any(s.content is not None for n in nodes for s in n.steps)
    unreviewed = [n.model_copy(update={"criteria": None, "steps": [
        s.model_copy(update={"content": None, "categorization_rationale": None}) for s in n.steps]}) for n in nodes]
    assert list(brief) == unreviewed
    assert isinstance(spooled, SpooledNodes) and repr(spooled) == "SpooledNodes(4 nodes)"


def test_roots_added_in_any_order_are_read_back_in_index_order(nodes: list[NodeResult], tmp_path: Path) -> None:
    spool = NodeSpool(tmp_path)
    for index, root in reversed(list(enumerate(by_root(nodes)))):
        spool.add(index, root)
    spooled = spool.nodes()
    assert list(spooled) == nodes and spooled[2] == nodes[2]
    texts = list(spooled.texts())
    assert orjson.loads(b"[\n" + b",\n".join(texts) + b"\n]") == [n.model_dump(mode="json") for n in nodes]
    assert all(text.startswith(b"    {\n      ") for text in texts)  # as evaluation_results.json indents them


def live_records() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, NodeResult | StepResult))


def test_the_spool_holds_no_record_in_memory(nodes: list[NodeResult]) -> None:
    spool = NodeSpool()
    gc.collect()
    before = live_records()
    for index in range(200):
        spool.add(index, nodes[:1])
    spooled = spool.nodes()
    gc.collect()
    assert live_records() == before  # was one brief node and its steps per root
    walked = [node.node_id for node in spooled.brief]
    assert walked == ["a.json"] * 200 and len(spooled.brief) == 200
    assert spooled.brief[-1] == spooled.brief[0] == list(spooled.brief.roots())[7][0]
    assert spooled.brief[1:3] == [spooled.brief[0]] * 2 and repr(spooled.brief) == "BriefNodes(200 nodes)"
    with pytest.raises(IndexError):
        spooled.brief[200]


def test_the_results_nodes_are_node_records_held_or_spooled_and_read_alike(nodes: list[NodeResult]) -> None:
    from tracegrade.atif import EvaluationResults

    spool = NodeSpool()
    for index, root in enumerate(by_root(nodes)):
        spool.add(index, root)
    spooled = spool.nodes()
    results = EvaluationResults.model_validate(
        {**_document(), "nodes": [node.model_dump(mode="json") for node in nodes]})
    held = results.nodes
    assert isinstance(held, ListedNodes) and isinstance(spooled, NodeRecords)
    assert held == spooled == nodes and list(held.brief) == nodes
    assert b",\n".join(held.texts()) == b",\n".join(spooled.texts())
    kept = results.model_validate({**results.model_dump(), "nodes": spooled})
    assert kept.nodes is spooled  # a job's records are not validated again
    assert kept.model_dump(mode="json") == results.model_dump(mode="json")


def _document() -> dict[str, object]:
    from tests.atif.output.test_report import sample_results

    return sample_results().model_dump(mode="json")
