"""What a comparison reads of a judge run: each node's scores and each step's verdict, nothing of what the judge saw.

Nodes and steps are decoded into msgspec structs made from the run's own records by
:func:`tracegrade._io.record_struct`, with only the fields in :data:`NODE_FIELDS` and :data:`STEP_FIELDS` (for
the type checker each struct is the record it reads); the run's parameters and summary into their pydantic records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeVar

import msgspec
from pydantic import BaseModel, ValidationError

from tracegrade._io import loads_written, record_struct
from tracegrade.atif.asking._content import StepContent
from tracegrade.atif.scoring._records import NodeResult, RunSummary, StepResult
from tracegrade.atif.scoring._results import RunParameters

__all__ = ["NODE_FIELDS", "STEP_FIELDS", "ComparedNode", "ComparedResults", "ComparedStep", "decode_results"]

STEP_FIELDS = ("index", "segment", "step_id", "source", "status", "score", "criterion_scores", "rationale",
               "error_code", "failure_candidate", "category", "content")
"""What a comparison reads of a step (of its content, the message)."""
NODE_FIELDS = ("node_id", "parent_id", "root_id", "trajectory_id", "session_id", "agent", "depth", "status",
               "own_score", "aggregate", "passed", "criteria", "steps")
"""What a comparison reads of a node."""

if TYPE_CHECKING:
    ComparedStep = StepResult
    ComparedNode = NodeResult
else:
    _READ = {"frozen": True, "gc": False}
    ComparedStep = record_struct(StepResult, STEP_FIELDS, name="ComparedStep", views={
        StepContent: record_struct(StepContent, ("message",), name="ComparedContent", **_READ)}, **_READ)
    ComparedNode = record_struct(NodeResult, NODE_FIELDS, name="ComparedNode", views={StepResult: ComparedStep},
                                 **_READ)


class _Document(msgspec.Struct, frozen=True, gc=False):
    format: Literal["tracegrade.atif.evaluation_results/1"]
    job_id: str
    created_at: str
    parameters: msgspec.Raw
    provenance: dict[str, Any]
    summary: msgspec.Raw
    shard: str | None = None
    nodes: tuple[ComparedNode, ...] = ()


class ComparedResults(msgspec.Struct, frozen=True):
    """A judge run as a comparison reads it."""

    job_id: str
    created_at: str
    shard: str | None
    parameters: RunParameters
    provenance: dict[str, Any]
    summary: RunSummary
    nodes: tuple[ComparedNode, ...]


_Model = TypeVar("_Model", bound=BaseModel)


def decode_results(data: bytes) -> ComparedResults:
    """The results in ``data`` (an ``evaluation_results.json``).

    Raises:
        ValueError: not JSON, or not the structure tracegrade writes; one line naming the place.
    """
    document = loads_written(data, _Document)
    return ComparedResults(
        job_id=document.job_id, created_at=document.created_at, shard=document.shard,
        parameters=_record(RunParameters, document.parameters, "parameters"),
        provenance=document.provenance, summary=_record(RunSummary, document.summary, "summary"),
        nodes=document.nodes,
    )


def _record(model: type[_Model], raw: msgspec.Raw, name: str) -> _Model:
    try:
        return model.model_validate_json(bytes(raw))
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        place = ".".join(str(part) for part in (name, *error["loc"]))
        raise ValueError(f"{error['msg']} - at `$.{place}`") from None
