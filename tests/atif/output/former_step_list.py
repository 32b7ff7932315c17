"""The report's step list as tracegrade rendered it with Jinja2 macros up to aaef74e: the reference of its bytes.

``_step_list.node_section`` replaced the ``node_section`` macro of ``atif_node.html`` (and the dict builders
of ``_report.py`` that fed it); the tests hold it to the same text. The template below is that macro file,
with the two macros of ``_macros.html`` it used (``badge``, ``long_text``) as they were then, in
``former_atif_node.html``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import orjson

from tracegrade.atif.scoring._records import NodeResult, StepResult, StepStatus
from tracegrade.render import MISSING, fmt_score, html_environment

TEMPLATE = (Path(__file__).with_name("former_atif_node.html")).read_text(encoding="utf-8")

_STEP_NOTES = {
    StepStatus.COPIED_CONTEXT: "Copied context: a replay of earlier context, kept but not scored and not counted.",
    StepStatus.NOT_RUN: "Not scored: never sent to the judge (its node failed or was not scored, or the run stopped).",
    StepStatus.FAILED: "Not scored: the judge gave no usable answer; see the error code.",
    StepStatus.EVIDENCE_ONLY: "Evidence only: a user or system frame, shown to the judge but not scored "
    "(--scored-frames agent).",  # a status added later: its note, as the step list renders it
}


def former_section(node: NodeResult, decisive: dict[int, str] | None = None) -> str:
    """``node``'s section as the ``node_section`` macro rendered it from the values ``_report._node`` built."""
    values = _node(node)
    for step in values["steps"]:
        step["decisive"] = (decisive or {}).get(step["index"])
    return str(_macro()(values))


@cache
def _macro() -> Any:
    return html_environment().from_string(TEMPLATE).module.node_section  # type: ignore[attr-defined]


def _node(node: NodeResult) -> dict[str, Any]:
    criteria = node.criteria or {}
    listed = criteria.get("criteria")
    return {
        "node": {"text": node.node_id},
        "agent": node.agent,
        "depth": node.depth,
        "status": node.status.value,
        "error_code": node.error_code,
        "message": node.message,
        "own_score": node.own_score,
        "aggregate": node.aggregate,
        "passed": _yes_no(node.passed),
        "complete": _yes_no(node.complete),
        "scored_steps": f"{node.step_count} of {node.total_steps}",
        "source": node.source_path + (f" {node.location}" if node.location else ""),
        "low_steps": sum(s.failure_candidate for s in node.steps),
        "criteria_mode": criteria.get("scoring_mode"),
        "rubric": criteria.get("rubric_name"),
        "criteria": listed if isinstance(listed, list) else [],
        "steps": [_step(s) for s in node.steps],
    }


def _step(step: StepResult) -> dict[str, Any]:
    return {
        "index": step.index,
        "segment": step.segment,
        "step_id": step.step_id,
        "source": step.source,
        "status": step.status.value,
        "note": _STEP_NOTES.get(step.status),
        "score": step.score,
        "criterion_scores": sorted((step.criterion_scores or {}).items()),
        "rationale": step.rationale,
        "omitted_history": step.omitted_history,
        "spread": _spread(step),
        "error_code": step.error_code,
        "failure_candidate": step.failure_candidate,
        "category": step.category,
        "categorization_status": step.categorization_status.value,
        "categorization_rationale": step.categorization_rationale,
        "categorization_error_code": step.categorization_error_code,
        "filter_category": _filter_category(step),
        "content": step.content,
        "decisive": None,
        "calls": [{"function_name": c.function_name, "tool_call_id": c.tool_call_id,
                   "arguments": _arguments(c.arguments)} for c in (step.content.tool_calls if step.content else ())],
    }


def _arguments(text: str) -> str:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    if not isinstance(value, dict) or not any(isinstance(v, str) and "\n" in v for v in value.values()):
        return text
    lines: list[str] = []
    for key, item in value.items():
        if isinstance(item, str) and "\n" in item:
            lines.append(f"{key}:")
            lines.extend(f"  {line}" for line in item.splitlines())
        else:
            lines.append(f"{key}: {orjson.dumps(item).decode()}")
    return "\n".join(lines)


def _spread(step: StepResult) -> str | None:
    spread = step.repeats
    if spread is None:
        return None
    verdicts = ", ".join(fmt_score(score) for score in spread.scores)
    unstable = " · straddles the failure threshold" if spread.unstable else ""
    return f"{len(spread.scores)} verdicts ({verdicts}) · sd {fmt_score(spread.std)}{unstable}"


def _filter_category(step: StepResult) -> str:
    if not step.failure_candidate:
        return "not_a_candidate"
    return step.category or step.categorization_status.value


def _yes_no(value: bool | None) -> str:
    return MISSING if value is None else ("yes" if value else "no")
