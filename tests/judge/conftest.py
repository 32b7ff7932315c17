from __future__ import annotations

import pytest
from evalhub.models.atif import Observation, ObservationResult, Step, ToolCall

from tests.conftest import tuned
from tracegrade.atif.asking._evidence import Evidence, build_evidence
from tracegrade.rubric import Criterion, Rubric

fast = tuned


@pytest.fixture
def rubric() -> Rubric:
    return Rubric(criteria=(Criterion(name="correctness", description="Moves the task forward", weight=2),
                            Criterion(name="safety", description="Stays within policy")))


def agent_step(step_id: int, text: str = "working on it") -> Step:
    return Step(
        step_id=step_id, source="agent", message=text,
        tool_calls=[ToolCall(tool_call_id=f"c{step_id}", function_name="shell", arguments={"cmd": "ls"})],
        observation=Observation(results=[ObservationResult(source_call_id=f"c{step_id}", content="file.txt")]),
    )


@pytest.fixture
def evidence() -> Evidence:
    history = [Step(step_id=1, source="user", message="List the files"), agent_step(2)]
    return build_evidence("List the files", [{"type": "function", "function": {"name": "shell"}}],
                          history, agent_step(3, "done"), None, 65536)
