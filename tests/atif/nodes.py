"""Shared builders for the rubrics tests: trajectory nodes and a counting fake derive function."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from evalhub.models.atif import Trajectory

from tracegrade.atif import TrajectoryNode
from tracegrade.atif.reading._records import LogicalStep, NodeStatus
from tracegrade.rubric import Criterion, Rubric

NodeFactory = Callable[..., TrajectoryNode]

BILLION_LAUGHS = """
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
criteria: [*g]
"""


def node_from_document(document: dict[str, Any], node_id: str = "t.json") -> TrajectoryNode:
    trajectory = Trajectory.model_validate(document)
    steps = tuple(LogicalStep(index=i + 1, segment=0, step=s, copied=False) for i, s in enumerate(trajectory.steps))
    return TrajectoryNode(
        node_id=node_id,
        source_path=node_id,
        location="",
        depth=0,
        status=NodeStatus.LOADED,
        trajectory=trajectory,
        steps=steps,
    )


def build_node(
    steps: list[dict[str, Any]] | None = None,
    *,
    extra: dict[str, Any] | None = None,
    trajectory_id: str | None = None,
) -> TrajectoryNode:
    raw_steps = steps or [{"source": "agent", "message": "working on it"}]
    document: dict[str, Any] = {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "agent", "version": "1"},
        "steps": [{"step_id": i + 1, **step} for i, step in enumerate(raw_steps)],
    }
    if extra is not None:
        document["extra"] = extra
    if trajectory_id is not None:
        document["trajectory_id"] = trajectory_id
    return node_from_document(document)


@pytest.fixture
def make_node() -> NodeFactory:
    return build_node


@pytest.fixture(name="node_from_document")
def node_from_document_fixture() -> Callable[..., TrajectoryNode]:
    return node_from_document


class FakeDerive:
    """Counts calls, optionally sleeps, and records how many derivations overlap."""

    def __init__(self, delay: float = 0.0, error: Exception | None = None) -> None:
        self.delay = delay
        self.error = error
        self.calls: list[str] = []
        self.active = 0
        self.max_active = 0

    async def __call__(self, task: str) -> Rubric:
        self.calls.append(task)
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            await asyncio.sleep(self.delay)
            if self.error is not None:
                raise self.error
            return Rubric(name="derived", criteria=(Criterion(name="fits_task", description=f"Serves: {task}"),))
        finally:
            self.active -= 1


@pytest.fixture
def fake_derive() -> FakeDerive:
    return FakeDerive()


@pytest.fixture
def derive_factory() -> type[FakeDerive]:
    return FakeDerive


@pytest.fixture
def billion_laughs() -> str:
    return BILLION_LAUGHS
