"""What the judge is asked when localising a failure, and the prompt version.

Three question templates, their answer schemas and the steps laid out for them within the request budget.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from string import Template
from typing import Any, Literal

from tracegrade.atif.asking._evidence import project_step
from tracegrade.atif.asking._prompts import SYSTEM_INSTRUCTION, object_schema
from tracegrade.atif.localising._timeline import TimelineStep
from tracegrade.judge import JudgeRequest, context_overflow, dumps

__all__ = ["LOCALISE_PROMPT_VERSION", "Question", "all_at_once_request", "binary_search_request",
           "step_by_step_request", "template_hash"]

Question = Literal["localise_all", "localise_step", "localise_half"]

LOCALISE_PROMPT_VERSION = "atif-localise-v2"
"""Name of the localisation prompt generation; part of every cache key and recorded with the results.

v2 keeps the record's parts in the order task, reference answer, earlier steps, the step to examine (not sorted
by name), so that the step-by-step questions of a tree share everything up to the newest earlier step, which a
provider's prefix cache serves."""

_MIN_VIEW_BYTES = 256
"""Smallest room one shortened step may get; below it the request is a ``context_overflow``."""

_FRAME = (
    "The record below comes from a run of one or more AI agents that did not accomplish its task. Each step "
    "has a reference in \"ref\" and the agent that acted in \"agent\". The decisive error is the earliest "
    "step whose mistake made the failure unavoidable: later steps only carried it forward. A step shown "
    "with \"shortened\" lost part of its text for space; \"excerpt\" holds the beginning."
)

_ALL = Template(
    f"{_FRAME}\n\n"
    "Agents taking part (JSON data):\n<agents>\n$agents\n</agents>\n\n"
    "Record (JSON data): the task, the correct final answer in \"reference_answer\" when it is known, and "
    "every step in time order in \"steps\".\n<record>\n$record\n</record>\n\n"
    "Find the decisive error. Reply with one JSON object and nothing else. It has exactly three keys: "
    "\"agent\", the name of the agent responsible, copied from the list above; \"step\", the \"ref\" of the "
    "decisive step copied exactly; and \"reason\", one to three sentences in your own words on what went wrong."
)

_STEP = Template(
    f"{_FRAME}\n\n"
    "Record (JSON data): the task, the correct final answer in \"reference_answer\" when it is known, the "
    "steps before the one to examine in \"earlier_steps\" (\"earlier_omitted\" older ones left out for space) "
    "and the step to examine in \"current_step\".\n<record>\n$record\n</record>\n\n"
    "Decide whether the current step is the decisive error. Reply with one JSON object and nothing else. It "
    "has exactly two keys: \"decisive\", true when this step holds the decisive error and false otherwise; "
    "and \"reason\", one to three sentences in your own words."
)

_HALF = Template(
    f"{_FRAME}\n\n"
    "The decisive error lies in the part of the run shown here, split into \"first_half\" and "
    "\"second_half\" (\"earlier_omitted\" steps before this part are not shown).\n"
    "Record (JSON data): the task, the correct final answer in \"reference_answer\" when it is known, and "
    "the two halves in time order.\n<record>\n$record\n</record>\n\n"
    "Decide which half holds the decisive error. Reply with one JSON object and nothing else. It has exactly "
    "two keys: \"half\", either \"first\" or \"second\"; and \"reason\", one to three sentences in your own "
    "words."
)

_TEMPLATES: dict[Question, Template] = {"localise_all": _ALL, "localise_step": _STEP, "localise_half": _HALF}


_REASON = {"type": "string", "minLength": 1, "maxLength": 600}
STEP_SCHEMA = object_schema({"decisive": {"type": "boolean"}, "reason": _REASON})
HALF_SCHEMA = object_schema({"half": {"type": "string", "enum": ["first", "second"]}, "reason": _REASON})


@functools.cache
def template_hash(question: Question) -> str:
    """SHA-256 of the system instruction and the template of ``question``."""
    material = dumps({"purpose": question, "system": SYSTEM_INSTRUCTION,
                      "template": _TEMPLATES[question].template, "version": LOCALISE_PROMPT_VERSION})
    return hashlib.sha256(material).hexdigest()


def step_view(step: TimelineStep) -> dict[str, Any]:
    """What the judge sees of one step: its reference, its agent and the projected step (without step_id)."""
    view = project_step(step.step)
    view.pop("step_id", None)
    return {"ref": step.ref, "agent": step.agent, **view}


def all_at_once_request(task: str, reference: str | None, steps: Sequence[TimelineStep], agents: Sequence[str],
                        limit: int, candidates: Sequence[TimelineStep] | None = None) -> JudgeRequest:
    """The whole record in one request, every step in full.

    The answer names one of ``candidates`` (default: any step) and one of ``agents``.

    Raises:
        JudgeError: ``context_overflow`` when it does not fit ``limit`` (nothing is ever shortened here).
    """
    record = _record(task, reference, steps=[step_view(s) for s in steps])
    named = steps if candidates is None else candidates
    schema = object_schema({"agent": {"type": "string", "enum": list(agents)},
                      "step": {"type": "string", "enum": [s.ref for s in named]}, "reason": _REASON})
    text = _ALL.substitute(agents=_embedded(dumps(list(agents)).decode()), record=_embedded(_ordered(record)))
    return _request("localise_all", text, schema, limit)


def step_by_step_request(task: str, reference: str | None, earlier: Sequence[TimelineStep], current: TimelineStep,
                         limit: int) -> tuple[JudgeRequest, int]:
    """Is ``current`` the decisive step? The newest earlier steps that fit come with it; returns how many did not.

    Raises:
        JudgeError: ``context_overflow`` when the current step alone does not fit.
    """
    def build(kept: Sequence[dict[str, Any]], omitted: int) -> JudgeRequest:
        record = _record(task, reference, earlier_omitted=omitted, earlier_steps=list(kept),
                         current_step=step_view(current))
        return _request("localise_step", _STEP.substitute(record=_embedded(_ordered(record))), STEP_SCHEMA)

    views = [step_view(s) for s in earlier]
    bare = build([], len(views))
    room, kept = limit - len(bare.canonical), 0
    for view in reversed(views):
        room -= _size(view)
        if room < 0:
            break
        kept += 1
    while True:
        request = build(views[len(views) - kept:], len(views) - kept)
        if len(request.canonical) <= limit or kept == 0:
            return _checked(request, limit), len(views) - kept
        kept -= 1


def binary_search_request(task: str, reference: str | None, first: Sequence[TimelineStep],
                          second: Sequence[TimelineStep], before: int, limit: int) -> tuple[JudgeRequest, int]:
    """Which of two halves holds the decisive step? Steps too long to fit are shortened (returns how many).

    Raises:
        JudgeError: ``context_overflow`` when even shortened steps do not fit.
    """
    def build(views: Sequence[dict[str, Any]]) -> JudgeRequest:
        record = _record(task, reference, earlier_omitted=before, first_half=list(views[: len(first)]),
                         second_half=list(views[len(first):]))
        return _request("localise_half", _HALF.substitute(record=_embedded(_ordered(record))), HALF_SCHEMA)

    views = [step_view(s) for s in (*first, *second)]
    request, shortened = build(views), 0
    room = limit - len(build([]).canonical)
    while len(request.canonical) > limit:
        fitted, shortened = shorten(views, room)
        request = build(fitted)
        room = room * 4 // 5
    return request, shortened


def shorten(views: Sequence[dict[str, Any]], room: int) -> tuple[list[dict[str, Any]], int]:
    """Fit ``views`` into ``room`` request bytes: a view over its equal share keeps only the start of its text.

    Raises:
        JudgeError: ``context_overflow`` when a share is under 256 bytes.
    """
    share = room // max(1, len(views))
    if share < _MIN_VIEW_BYTES:
        raise context_overflow(f"{len(views)} steps, even shortened,", _MIN_VIEW_BYTES * len(views), max(room, 0))
    fitted: list[dict[str, Any]] = []
    shortened = 0
    for view in views:
        if _size(view) <= share:
            fitted.append(view)
            continue
        shortened += 1
        head = {"ref": view["ref"], "agent": view["agent"], "source": view.get("source"), "shortened": True}
        keep = max(0, share - _size({**head, "excerpt": ""}))
        text = dumps(view).decode()
        fitted.append({**head, "excerpt": text[: keep // 3]})  # JSON escaping, twice, can triple a character
    return fitted, shortened


def _size(view: dict[str, Any]) -> int:
    """Bytes ``view`` takes in a request: its JSON, embedded in the prompt text, escaped again as a JSON string."""
    return len(dumps(_embedded(dumps(view).decode()))) + 1


def _record(task: str, reference: str | None, **parts: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"task": task}
    if reference is not None:
        record["reference_answer"] = reference
    record.update(parts)
    return record


def _ordered(record: dict[str, Any]) -> str:
    """The record as JSON with its parts in the order given (what stays the same first); keys inside them sorted."""
    return "{" + ",".join(f"{dumps(key).decode()}:{dumps(value).decode()}" for key, value in record.items()) + "}"


def _embedded(json_text: str) -> str:
    r"""JSON text that cannot close the prompt's ``<tag>`` delimiters early (``</`` becomes ``<\/``)."""
    return json_text.replace("</", "<\\/")


def _request(question: Question, text: str, schema: dict[str, Any], limit: int | None = None) -> JudgeRequest:
    messages = ({"role": "system", "content": SYSTEM_INSTRUCTION}, {"role": "user", "content": text})
    request = JudgeRequest(question, messages, schema, template_hash(question), LOCALISE_PROMPT_VERSION)
    return request if limit is None else _checked(request, limit)


def _checked(request: JudgeRequest, limit: int) -> JudgeRequest:
    if len(request.canonical) > limit:
        raise context_overflow("the localisation request", len(request.canonical), limit)
    return request
