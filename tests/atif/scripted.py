"""A scripted judge whose verdicts are written into the trajectories themselves.

A step whose message contains ``SCORE:x`` gets score ``x`` on every criterion; ``FAIL`` makes the judge answer
HTTP 400 for that step; ``CAT:name`` picks the failure category (``CAT:garbage`` answers unusable text).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply, scripted_answer

_CURRENT = re.compile(r'"current_step":\{[^{}]*?"message":"([^"]*)"')


def marker_rule(request: ReceivedRequest) -> ScriptedReply:
    body = request.json()
    prompt = body["messages"][-1]["content"]
    match = _CURRENT.search(prompt)
    message = match.group(1) if match else ""
    if "<categories>" in prompt:
        category = re.search(r"CAT:(\w+)", message)
        name = category.group(1) if category else "reasoning_failure"
        if name == "garbage":
            return ScriptedReply.text("I cannot decide.")
        if name == "http500":
            return ScriptedReply.error(500)
        return ScriptedReply.answer({"category": name, "rationale": "scripted"})
    if "FAIL" in message and "<criteria>" in prompt:
        return ScriptedReply.error(400)
    score = re.search(r"SCORE:([0-9.]+)", message)
    value = float(score.group(1)) if score else 0.9
    return ScriptedReply.answer(scripted_answer(body, score=value))


@pytest.fixture
def judge_server() -> Iterator[ScriptedJudgeServer]:
    with ScriptedJudgeServer(marker_rule) as server:
        yield server


def trajectory(*messages: str, refs: dict[int, list[dict[str, Any]]] | None = None, **extra: Any) -> dict[str, Any]:
    """A trajectory whose step i carries messages[i]; refs maps a 1-based step to subagent refs."""
    steps = []
    for i, message in enumerate(messages, start=1):
        step: dict[str, Any] = {"step_id": i, "source": "user" if i == 1 else "agent", "message": message}
        if refs and i in refs:
            step["observation"] = {"results": [{"subagent_trajectory_ref": refs[i]}]}
        steps.append(step)
    doc: dict[str, Any] = {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"}, "steps": steps}
    doc.update(extra)
    return doc


def write(path: Path, doc: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(doc))
    return path


CUSTOM = {
    "scoring_mode": "custom",
    "custom_rubric": "criteria:\n  - name: quality\n    description: Good step\n    weight: 1\n",
}
