"""Planted failures: trees whose decisive step carries ``DECISIVE`` at the start of its message, and judges
(a scripted-server rule, an in-process answer) that answer localisation questions from the plant."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from tests.atif.helpers import write
from tracegrade.judge import JudgeRequest
from tracegrade.judge.testing import ReceivedRequest, ScriptedReply

MARK = "DECISIVE"
_RECORD = re.compile(r"<record>\n(.*)\n</record>", re.DOTALL)


def steps(n: int, agent_of: Callable[[int], str] = lambda i: "solver", plant: int | None = None
          ) -> list[dict[str, Any]]:
    """``n`` steps, the first a user step; step ``plant`` (1-based) is the decisive one."""
    made = []
    for i in range(1, n + 1):
        text = f"{MARK}: wrong turn at {i}" if i == plant else f"ordinary work {i}"
        source = "user" if i == 1 else "agent"
        made.append({"step_id": i, "source": source, "message": text,
                     "extra": {"who_and_when": {"name": agent_of(i)}}})
    return made


def document(step_list: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"schema_version": "ATIF-v1.7", "agent": {"name": "team", "version": "1"}, "steps": step_list, **extra}


def planted_tree(folder: Path, where: str, n: int = 12) -> tuple[Path, dict[str, Any]]:
    """A root under ``folder`` with the decisive step at ``where``: start, end, subagent or continuation.

    Returns the root file and the plant: ``node`` (suffix of the node id), ``index`` and ``agent``.
    """
    agents = ["planner", "coder", "checker"]

    def agent_of(i: int) -> str:
        return agents[i % 3]

    if where in ("start", "end"):
        index = 2 if where == "start" else n
        root = write(folder / "root.json", document(steps(n, agent_of, plant=index), trajectory_id="t-" + where))
        return root, {"node": "root.json", "index": index, "agent": agent_of(index)}
    if where == "subagent":
        child = document(steps(5, lambda i: "browser", plant=2), trajectory_id="child")
        write(folder / "child.json", child)
        main = steps(n, agent_of)
        main[3]["observation"] = {"results": [{"subagent_trajectory_ref": [{"trajectory_path": "child.json"}]}]}
        root = write(folder / "root.json", document(main, trajectory_id="t-sub"))
        return root, {"node": "child.json", "index": 2, "agent": "browser"}
    assert where == "continuation"
    write(folder / "c.json", document(steps(6, agent_of, plant=4), trajectory_id="t-cont"))
    root = write(folder / "root.json", document(steps(n, agent_of), trajectory_id="t-cont",
                                                continued_trajectory_ref="c.json"))
    return root, {"node": "root.json", "index": n + 4, "agent": agent_of(4)}


def record_of(prompt: str) -> dict[str, Any]:
    """The record a localisation prompt shows."""
    match = _RECORD.search(prompt)
    assert match is not None, "not a localisation prompt"
    value: dict[str, Any] = orjson.loads(match.group(1).replace("<\\/", "</"))
    return value


def _marked(views: list[dict[str, Any]]) -> dict[str, Any] | None:
    for view in views:
        text = view.get("message") or view.get("excerpt") or ""
        if MARK in str(text):
            return view
    return None


def planted_answer(prompt: str, pick: Callable[[list[dict[str, Any]], dict[str, Any]], dict[str, Any]] | None = None
                   ) -> dict[str, Any]:
    """The answer of a judge that sees the plant; ``pick`` may replace the planted step of an all-at-once answer."""
    record = record_of(prompt)
    if "steps" in record:
        view = _marked(record["steps"])
        assert view is not None
        if pick is not None:
            view = pick(record["steps"], view)
        return {"agent": view["agent"], "step": view["ref"], "reason": "the planted step"}
    if "current_step" in record:
        return {"decisive": _marked([record["current_step"]]) is not None, "reason": "planted"}
    first = _marked(record["first_half"]) is not None
    return {"half": "first" if first else "second", "reason": "planted"}


def plant_rule(request: ReceivedRequest) -> ScriptedReply:
    """A scripted-server rule answering every localisation question from the plant."""
    body = request.json()
    return ScriptedReply.answer(planted_answer(body["messages"][-1]["content"]))


def accurate(p: float, rng: random.Random) -> Callable[[JudgeRequest], dict[str, Any]]:
    """An in-process all-at-once judge naming the planted step with probability ``p``, another step otherwise."""

    def pick(views: list[dict[str, Any]], planted: dict[str, Any]) -> dict[str, Any]:
        if rng.random() < p:
            return planted
        return rng.choice([v for v in views if v is not planted and v.get("source") != "user"])  # a candidate

    return lambda request: planted_answer(request.messages[-1]["content"], pick)


def first_rule(request: ReceivedRequest) -> ScriptedReply:
    """A rule with no knowledge of any plant: it always blames the first step shown (a check that the plumbing
    works, not a judge)."""
    record = record_of(request.json()["messages"][-1]["content"])
    if "steps" in record:
        first = record["steps"][0]
        return ScriptedReply.answer({"agent": first["agent"], "step": first["ref"], "reason": "the first step"})
    if "current_step" in record:
        return ScriptedReply.answer({"decisive": True, "reason": "the first step"})
    return ScriptedReply.answer({"half": "first", "reason": "the first step"})


def hand_crafted(mistake_step: int = 3, mistake_agent: str = "WebSurfer", **fields: Any) -> dict[str, Any]:
    """A log shaped like Who&When's hand-crafted ones: the speaker is named only in ``role`` (with a bracketed
    annotation on the orchestrator's turns), the asker is ``human``, and ``mistake_step`` is a string."""
    history = [
        {"content": "How many studio albums did the band release before 2000?", "role": "human"},
        {"content": "Initial plan: search the discography, then count.", "role": "Orchestrator (thought)"},
        {"content": "Search the web for the band's discography.", "role": "Orchestrator (-> WebSurfer)"},
        {"content": "I typed 'discography' into the search bar and opened a fan page.", "role": "WebSurfer"},
        {"content": "The fan page lists 4 albums.", "role": "Orchestrator (thought)"},
        {"content": "FINAL ANSWER: 4", "role": "Orchestrator (final answer)"},
    ]
    log = {"history": history, "question": history[0]["content"], "ground_truth": "5", "is_correct": False,
           "question_ID": "hc-1", "level": "1", "mistake_agent": mistake_agent, "mistake_step": str(mistake_step),
           "mistake_reason": "It trusted a fan page instead of the official discography."}
    return {**log, **fields}


def enum_first_rule(request: ReceivedRequest) -> ScriptedReply:
    """Like :func:`first_rule`, but an all-at-once answer names the first step and agent the request's schema
    offers (the candidates), not the first step shown."""
    body = request.json()
    record = record_of(body["messages"][-1]["content"])
    if "steps" in record:
        schema = body["response_format"]["json_schema"]["schema"]["properties"]
        ref = schema["step"]["enum"][0]
        agent = next(view["agent"] for view in record["steps"] if view["ref"] == ref)
        return ScriptedReply.answer({"agent": agent, "step": ref, "reason": "the first candidate"})
    return first_rule(request)
