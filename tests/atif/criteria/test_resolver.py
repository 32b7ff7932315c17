import asyncio

import pytest

from tracegrade.atif import TrajectoryNode
from tracegrade.atif.criteria._params import validate_criteria_params
from tracegrade.atif.criteria._resolver import CriteriaResolver, build_resolver
from tracegrade.atif.criteria._sources import CriteriaFailure, CriteriaFailureCode, ResolvedCriteria
from tracegrade.atif.reading._records import NodeStatus
from tracegrade.atif.reading._task import task_hash
from tracegrade.errors import JudgeError
from tracegrade.rubric import Rubric, ScoringMode


def user(text):
    return [{"source": "user", "message": text}]


def auto(derive):
    return build_resolver({}, derive=derive, template_hash="tpl-1", prompt_version="atif-context-v2")


async def test_auto_uses_task_instruction_and_records_provenance(make_node, fake_derive):
    node = make_node(user("ignored"), extra={"task_instruction": "Book a flight"})
    resolved = await auto(fake_derive).resolve(node)
    assert isinstance(resolved, ResolvedCriteria)
    assert fake_derive.calls == ["Book a flight"]
    assert resolved.task == "Book a flight"
    assert resolved.provenance() == {
        "scoring_mode": "auto",
        "rubric_name": "derived",
        "rubric_version": "1",
        "aggregation": "weighted_mean",
        "criteria": [{"name": "fits_task", "description": "Serves: Book a flight", "weight": 1.0}],
        "criteria_hash": resolved.rubric.criteria_hash,
        "task_hash": task_hash("Book a flight"),
        "prompt_version": "atif-context-v2",
        "criteria_template_hash": "tpl-1",
    }


async def test_auto_uses_first_user_text(make_node, fake_derive):
    resolved = await auto(fake_derive).resolve(make_node(user("Sort the list") + user("Also reverse it")))
    assert resolved.task == "Sort the list"
    assert fake_derive.calls == ["Sort the list"]


async def test_auto_without_task_fails_with_task_unresolved(make_node, fake_derive):
    node = make_node([{"source": "system", "message": "x", "observation": {"results": [{"content": "Task: Y"}]}}])
    failure = await auto(fake_derive).resolve(node)
    assert isinstance(failure, CriteriaFailure)
    assert failure.code == CriteriaFailureCode.TASK_UNRESOLVED == "task_unresolved"
    assert failure.mode is ScoringMode.AUTO
    assert failure.provenance() == {"scoring_mode": "auto", "criteria_error": "task_unresolved"}
    assert fake_derive.calls == []


async def test_same_task_resolved_concurrently_costs_one_derivation(make_node, derive_factory):
    derive = derive_factory(delay=0.05)
    resolver = auto(derive)
    nodes = [make_node(user("Same task")), make_node(user("  Same\n  task ")), make_node(user("Same task"))]
    results = await asyncio.gather(*(resolver.resolve(node) for node in nodes))
    assert len(derive.calls) == 1
    assert len({r.rubric.criteria_hash for r in results}) == 1
    assert len({r.task_hash for r in results}) == 1


async def test_distinct_tasks_are_derived_concurrently(make_node, derive_factory):
    derive = derive_factory(delay=0.1)
    resolver = auto(derive)
    nodes = [make_node(user(f"Task {i}")) for i in range(4)]
    await asyncio.gather(*(resolver.resolve(node) for node in nodes))
    assert sorted(derive.calls) == [f"Task {i}" for i in range(4)]
    assert derive.max_active == 4


async def test_derivations_are_remembered_for_the_job(make_node, fake_derive):
    resolver = auto(fake_derive)
    await resolver.resolve(make_node(user("A")))
    await resolver.resolve(make_node(user("A")))
    assert fake_derive.calls == ["A"]


async def test_judge_error_fails_every_node_of_that_task_once(make_node, derive_factory):
    derive = derive_factory(delay=0.01, error=JudgeError("no valid JSON object", code="invalid_criteria_json"))
    resolver = auto(derive)
    results = await asyncio.gather(*(resolver.resolve(make_node(user("T"))) for _ in range(3)))
    assert len(derive.calls) == 1
    assert all(isinstance(r, CriteriaFailure) and r.code == "invalid_criteria_json" for r in results)
    assert results[0].task_hash == task_hash("T")


async def test_invalid_derived_criteria_fail_without_fallback(make_node):
    async def derive(task: str) -> Rubric:
        return Rubric.model_validate({"criteria": [{"name": "x", "description": "d", "weight": 0}]})

    failure = await auto(derive).resolve(make_node(user("T")))
    assert isinstance(failure, CriteriaFailure)
    assert failure.code == "invalid_criteria"


async def test_cancelled_waiter_does_not_cancel_shared_derivation(make_node, derive_factory):
    derive = derive_factory(delay=0.05)
    resolver = auto(derive)
    first = asyncio.ensure_future(resolver.resolve(make_node(user("T"))))
    second = asyncio.ensure_future(resolver.resolve(make_node(user("T"))))
    await asyncio.sleep(0.01)
    first.cancel()
    assert isinstance(await second, ResolvedCriteria)
    assert len(derive.calls) == 1


async def test_unloaded_node_fails_explicitly(fake_derive):
    node = TrajectoryNode("n", "f.json", "", 1, NodeStatus.INVALID, trajectory=None, reason="cycle")
    failure = await auto(fake_derive).resolve(node)
    assert isinstance(failure, CriteriaFailure)
    assert failure.code == "node_not_loaded"


async def test_custom_mode_resolves_task_without_deriving(make_node, fake_derive):
    params = {"scoring_mode": "custom", "custom_rubric": "criteria: [{name: c, description: d, weight: 1}]"}
    resolver = build_resolver(params, derive=fake_derive, template_hash="t")
    resolved = await resolver.resolve(make_node(user("Do it")))
    assert resolved.task == "Do it"
    assert resolved.provenance()["rubric_source"] == "custom_rubric"
    assert "task_hash" in resolved.provenance()
    no_task = await resolver.resolve(make_node())
    assert isinstance(no_task, ResolvedCriteria)
    assert no_task.task is None
    assert fake_derive.calls == []


def test_auto_mode_needs_derive_and_template_hash():
    params = validate_criteria_params({})
    with pytest.raises(TypeError, match="derive"):
        CriteriaResolver(params)
    with pytest.raises(TypeError, match="template_hash"):
        build_resolver(params, derive=lambda task: asyncio.sleep(0, Rubric), template_hash="")
