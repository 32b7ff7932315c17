"""Scripted judges for ATIF prompts, on the product's scripted rules (tracegrade.judge.testing.scripted_rule).

:func:`judge_rule` gives every step one fixed score and category. :data:`marker_rule` reads verdicts written
into the trajectories themselves, with :data:`MARKER_RULES`, a rules document in the format of
docs/scripted-judge.md: a step whose text contains ``SCORE:x`` gets score ``x`` on every criterion; ``FAIL``
makes the judge answer HTTP 400 for that step's score; ``CAT:name`` picks the failure category
(``CAT:garbage`` answers unusable text, ``CAT:http500`` an HTTP 500).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracegrade.judge._rules import read_request, request_kind
from tracegrade.judge.testing import (
    KINDS,
    ReceivedRequest,
    Rule,
    Rules,
    ScriptedJudgeServer,
    rules_from_mapping,
    scripted_rule,
)

TEST_CRITERIA = ({"name": "correctness", "description": "Does the right thing", "weight": 2},
                 {"name": "efficiency", "description": "Wastes no steps", "weight": 1})
"""What the test rules answer a derivation with."""


def fixed_rules(*, score: float = 0.75, category: str = "reasoning_failure") -> Rules:
    """Rules without cues: every step scores ``score`` and falls in ``category``."""
    return Rules(default_score=score, default_category=category, criteria=TEST_CRITERIA, usage=(100, 20))


def scripted_answer(request_body: Any, *, score: float = 0.75, category: str = "reasoning_failure") -> Any:
    """The answer the fixed rules give a tracegrade request body ({} for a request of no known kind)."""
    asked = read_request(request_body)
    kind = request_kind(request_body, asked, KINDS)
    return {} if kind is None else kind.answer(asked, fixed_rules(score=score, category=category))


def judge_rule(*, score: float = 0.75, category: str = "reasoning_failure") -> Rule:
    """A rule answering every tracegrade request validly, with a fixed score and category."""
    return scripted_rule(fixed_rules(score=score, category=category))


MARKER_RULES: dict[str, Any] = {
    "default_score": 0.9,
    "default_category": "reasoning_failure",
    "criteria": list(TEST_CRITERIA),
    "cues": [
        {"match": r"SCORE:([0-9.]+)", "score": "$1", "ignore_case": False},
        {"match": "FAIL", "ignore_case": False, "reply": {"score": {"status": 400}}},
        {"match": "CAT:garbage", "ignore_case": False, "reply": {"categorize": {"text": "I cannot decide."}}},
        {"match": "CAT:http500", "ignore_case": False, "reply": {"categorize": {"status": 500}}},
        {"match": r"CAT:(\w+)", "category": "$1", "ignore_case": False},
    ],
}
"""The verdict markers of the test trajectories, as a rules document."""

marker_rule: Rule = scripted_rule(rules_from_mapping(MARKER_RULES, Rules()))
"""Verdicts written into the trajectories (``SCORE:x``, ``FAIL``, ``CAT:name``)."""


def quoted_step(request: ReceivedRequest) -> str:
    """The current step's message as the judge saw it, quoted back raw when it is JSON text.

    A step whose message is a forged verdict thus reaches the extractor as a verdict-shaped object
    of its own, beside the judge's real one: the hostile case extraction must not be steered by.
    """
    body: Any = request.json()
    prompt = body["messages"][-1]["content"] if isinstance(body, dict) and body.get("messages") else ""
    start = prompt.find("<evidence>\n")
    end = prompt.find("\n</evidence>")
    try:
        evidence = orjson.loads(prompt[start + len("<evidence>\n"): end]) if 0 <= start < end else {}
    except orjson.JSONDecodeError:
        evidence = {}
    step = evidence.get("current_step", {}) if isinstance(evidence, dict) else {}
    message = step.get("message") if isinstance(step, dict) else None
    if isinstance(message, str) and message.lstrip().startswith("{"):
        return message
    return orjson.dumps({"current_step": step}).decode()


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
