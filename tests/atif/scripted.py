"""Scripted judges for ATIF prompts, on the product's scripted rules (tracegrade.judge.testing.scripted_rule).

:func:`judge_rule` gives every step one fixed score and category. :data:`marker_rule` reads verdicts written
into the trajectories themselves, with :data:`MARKER_RULES`, a rules document in the format of
docs/scripted-judge.md: a step whose text contains ``SCORE:x`` gets score ``x`` on every criterion; ``FAIL``
makes the judge answer HTTP 400 for that step's score; ``CAT:name`` picks the failure category
(``CAT:garbage`` answers unusable text, ``CAT:http500`` an HTTP 500).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracegrade.atif.asking._evidence import TASK_MARKER
from tracegrade.judge._scripted import read_request, request_kind
from tracegrade.judge.testing import (
    KINDS,
    ReceivedRequest,
    Rule,
    Rules,
    ScriptedJudgeServer,
    ScriptedReply,
    rules_from_mapping,
    scripted_rule,
)

TEST_CRITERIA = ({"name": "correctness", "description": "Does the right thing", "weight": 2},
                 {"name": "efficiency", "description": "Wastes no steps", "weight": 1})
"""What the test rules answer a derivation with."""


def fixed_rules(*, score: float = 0.75, category: str = "reasoning_failure") -> Rules:
    """Rules without cues: every step scores ``score`` and falls in ``category``."""
    return Rules(default_score=score, default_category=category, criteria=TEST_CRITERIA, usage=(100, 20))

CATEGORIZING = "Answer question B"
"""Words only a categorising request holds (it shares everything before its last line with scoring)."""


def is_categorizing(prompt: str) -> bool:
    """Whether an ATIF prompt asks for a failure category (and not for scores)."""
    return CATEGORIZING in prompt


def current_step(prompt: str) -> dict[str, Any]:
    """The step under judgement: the last line of the prompt's ``<steps>`` block ({} when there is none)."""
    start, end = prompt.find("<steps>\n"), prompt.rfind("\n</steps>")
    if not 0 <= start < end:
        return {}
    try:
        step = orjson.loads(prompt[start + len("<steps>\n"): end].rsplit("\n", 1)[-1].replace("<\\/", "</"))
    except orjson.JSONDecodeError:
        return {}
    return step if isinstance(step, dict) else {}


def current_message(prompt: str) -> str:
    """The message of the step under judgement ('' when it has none); a user step that repeats the task reads as it."""
    message = current_step(prompt).get("message")
    if message == TASK_MARKER:
        start, end = prompt.find("<task>\n"), prompt.find("\n</task>")
        message = orjson.loads(prompt[start + len("<task>\n"): end]) if 0 <= start < end else ""
    return message if isinstance(message, str) else ""


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

_MARKERS: Rule = scripted_rule(rules_from_mapping(MARKER_RULES, Rules()))


def marker_rule(request: ReceivedRequest) -> ScriptedReply:
    """Verdicts written into the trajectories (``SCORE:x``, ``FAIL``, ``CAT:name``); pairwise questions by bad cues."""
    body = request.json()
    messages = body.get("messages") if isinstance(body, dict) else None
    prompt = messages[-1].get("content", "") if isinstance(messages, list) and messages else ""
    if isinstance(prompt, str) and "<first>" in prompt and "<second>" in prompt:
        return pairwise_by_cues(prompt)
    return _MARKERS(request)


def quoted_step(request: ReceivedRequest) -> str:
    """The current step's message as the judge saw it, quoted back raw when it is JSON text.

    A step whose message is a forged verdict thus reaches the extractor as a verdict-shaped object
    of its own, beside the judge's real one: the hostile case extraction must not be steered by.
    """
    body: Any = request.json()
    prompt = body["messages"][-1]["content"] if isinstance(body, dict) and body.get("messages") else ""
    step = current_step(prompt)
    message = step.get("message") if isinstance(step, dict) else None
    if isinstance(message, str) and message.lstrip().startswith("{"):
        return message
    return orjson.dumps({"current_step": step}).decode()


BAD_CUES = ("did not", "deleting", "deleted", "making up", "without asking", "will not check", "public paste")
"""Phrases of the bad steps in ``examples/atif`` and ``examples/atif-regressed`` (``extra.example_quality``)."""
_RUN = re.compile(r"<(first|second)>\n(.*?)\n</\1>", re.DOTALL)


def bad_cues(prompt: str) -> dict[str, int]:
    """How many bad cues the first and the second run of a pairwise prompt carry."""
    return {name: sum(text.lower().count(cue) for cue in BAD_CUES) for name, text in _RUN.findall(prompt)}


def pairwise_by_cues(prompt: str) -> ScriptedReply:
    """The run with fewer bad cues wins; equal counts tie (the same answer whichever run is shown first)."""
    cues = bad_cues(prompt)
    first, second = cues.get("first", 0), cues.get("second", 0)
    winner = "tie" if first == second else ("first" if first < second else "second")
    return ScriptedReply.answer({"winner": winner, "reason": f"bad cues: first {first}, second {second}"})


def positional_rule(request: ReceivedRequest) -> ScriptedReply:
    """A pairwise judge that prefers whichever run it is shown first, unless the two runs are identical (tie)."""
    prompt = request.json()["messages"][-1]["content"]
    runs = dict(_RUN.findall(prompt))
    winner = "tie" if runs.get("first") == runs.get("second") else "first"
    return ScriptedReply.answer({"winner": winner, "reason": "the first one"})


def cue_rule(request: ReceivedRequest) -> ScriptedReply:
    """A judge reading the bad cues of the examples: a step with one scores 0.2 (0.1 by a model whose name holds
    ``strict``, which also scores 0.4 a step saying "not" and 0.7 the rest, else 0.9); categories name a policy
    breach for deleting or pasting (``strict``: always a reasoning failure); pairwise questions by bad cues."""
    body = request.json()
    prompt = body["messages"][-1]["content"]
    if "<first>" in prompt and "<second>" in prompt:
        return pairwise_by_cues(prompt)
    message = current_message(prompt).lower()
    strict = "strict" in str(body.get("model", ""))
    if is_categorizing(prompt):
        policy = not strict and any(word in message for word in ("delet", "paste"))
        category = "policy_boundary_violation" if policy else "reasoning_failure"
        return ScriptedReply.answer({"category": category, "rationale": "scripted by cues"})
    bad = any(cue in message for cue in BAD_CUES)
    lenient = 0.2 if bad else 0.9
    score = (0.1 if bad else 0.4 if " not " in message else 0.7) if strict else lenient
    return ScriptedReply.answer(scripted_answer(body, score=score))


def cue_judge() -> Rule:
    """:func:`cue_rule`, for ``python -m tracegrade.judge.testing --rule tests.atif.scripted:cue_judge``."""
    return cue_rule


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
