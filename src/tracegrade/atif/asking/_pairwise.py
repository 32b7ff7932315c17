"""The pairwise question: which of two trajectories of one task accomplishes it better, and its answer.

Each trajectory is shown as its steps' projections (what the step judge sees of a step, subagents' steps
included and named by agent). When the whole request does not fit ``max_context_bytes``, the steps are shown
compact (source, agent and message only) and the request records that; when even that does not fit, the pair
is refused with ``context_overflow``. Nothing is clipped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from string import Template
from typing import Any, Literal

import orjson

from tracegrade.atif.asking._evidence import project_step
from tracegrade.atif.asking._prompts import SYSTEM_INSTRUCTION
from tracegrade.atif.reading._records import TrajectoryNode, iter_nodes
from tracegrade.judge import JudgeRequest, context_overflow, dumps, protocol_error

__all__ = ["PAIRWISE_SCHEMA", "PAIRWISE_VERSION", "PairwiseReply", "pairwise_request", "parse_pairwise", "project_tree"]

PAIRWISE_VERSION = "atif-pairwise-v1"
"""Name of the pairwise prompt generation; part of the cache key and recorded with every verdict."""
Winner = Literal["first", "second", "tie"]
View = Literal["full", "compact"]

_PAIRWISE = Template(
    "Two recorded runs of AI agents worked on the same task. Decide which run accomplishes the task "
    "better: correct and useful actions, no harmful, false or pointless ones, and the task actually done.\n\n"
    "Task (JSON string):\n<task>\n$task\n</task>\n\n"
    "The first run's steps (JSON data, oldest first; \"agent\" names the agent or subagent of each step):\n"
    "<first>\n$first\n</first>\n\n"
    "The second run's steps (JSON data):\n<second>\n$second\n</second>\n\n"
    "Judge the runs on their content only: their order here, their length and their style say nothing about "
    "their quality. Answer \"first\" or \"second\" for the better run, or \"tie\" when neither is better, and "
    "give the reason in one or two sentences."
)
PAIRWISE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"winner": {"type": "string", "enum": ["first", "second", "tie"]}, "reason": {"type": "string"}},
    "required": ["winner", "reason"],
    "additionalProperties": False,
}
_MAX_REASON = 2000
_TEMPLATE_HASH = hashlib.sha256(dumps({"purpose": "pairwise", "system": SYSTEM_INSTRUCTION,
                                       "template": _PAIRWISE.template, "version": PAIRWISE_VERSION})).hexdigest()


@dataclass(frozen=True, slots=True)
class PairwiseReply:
    """The judge's choice between the first and the second run, and why."""

    winner: Winner
    reason: str

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON form (what the cache stores)."""
        return {"winner": self.winner, "reason": self.reason}


def parse_pairwise(answer: dict[str, Any]) -> PairwiseReply:
    """The validated answer.

    Raises:
        JudgeError: ``schema_violation`` when ``winner`` is not first, second or tie, or ``reason`` is missing.
    """
    winner, reason = answer.get("winner"), answer.get("reason")
    if winner not in ("first", "second", "tie"):
        raise protocol_error("schema_violation", "winner must be first, second or tie")
    if not isinstance(reason, str) or not reason.strip():
        raise protocol_error("schema_violation", "reason must be a non-empty string")
    return PairwiseReply(winner=winner, reason=reason.strip()[:_MAX_REASON])


def project_tree(root: TrajectoryNode, view: View = "full") -> list[dict[str, Any]]:
    """The steps of ``root`` and its subagents (parents first), as the judge sees them."""
    steps: list[dict[str, Any]] = []
    for node in iter_nodes(root):
        agent = node.agent_name or node.node_id
        for logical in node.steps:
            projected = project_step(logical.step)
            if view == "compact":
                projected = {"source": projected["source"], "message": projected["message"]}
            steps.append({"agent": agent, **projected})
    return steps


def _embedded(value: Any) -> str:
    return orjson.dumps(value).decode().replace("</", "<\\/")


def pairwise_request(task: str, first: TrajectoryNode, second: TrajectoryNode,
                     max_context_bytes: int) -> tuple[JudgeRequest, View]:
    """The question for ``first`` and ``second`` in this order, and the view of the steps that fit.

    Raises:
        JudgeError: ``context_overflow`` when even the compact view does not fit ``max_context_bytes``.
    """
    size = 0
    for view in ("full", "compact"):
        text = _PAIRWISE.substitute(task=_embedded(task), first=_embedded(project_tree(first, view)),
                                    second=_embedded(project_tree(second, view)))
        messages = ({"role": "system", "content": SYSTEM_INSTRUCTION}, {"role": "user", "content": text})
        request = JudgeRequest("pairwise", messages, PAIRWISE_SCHEMA, _TEMPLATE_HASH, PAIRWISE_VERSION)
        size = len(request.canonical)
        if size <= max_context_bytes:
            return request, view
    raise context_overflow("the two trajectories, even with compact steps,", size, max_context_bytes)
