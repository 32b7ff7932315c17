"""What a comparison reads of a judge run: each node's scores and each step's verdict, nothing of what the judge saw.

``evaluation_results.json`` is decoded straight into these msgspec structs: the fields a comparison does not use
(the judge's view of each step, most node fields) are skipped while parsing, nothing is built for them, and the
structs are left out of garbage collection, so reading two runs of 10,000 trajectories takes a fraction of a
validating parse. The run's parameters and summary are still read into their pydantic records.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

import msgspec
from pydantic import BaseModel, ValidationError

from tracegrade._io import loads_written
from tracegrade.atif.scoring._records import NodeStatusCode, RunSummary, StepStatus
from tracegrade.atif.scoring._results import RunParameters

__all__ = ["ComparedNode", "ComparedResults", "ComparedStep", "decode_results"]


Score = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
"""A score as a run records it: finite, in [0, 1]; anything else is a hand-edited or foreign file, refused on read."""


class _Content(msgspec.Struct, frozen=True, gc=False):
    message: str | None = None


class ComparedStep(msgspec.Struct, frozen=True, gc=False):
    """A step's identity and verdict."""

    index: int
    segment: int
    step_id: int
    source: str
    status: StepStatus
    score: Score | None = None
    criterion_scores: dict[str, Score] | None = None
    rationale: str | None = None
    error_code: str | None = None
    failure_candidate: bool = False
    category: str | None = None
    content: _Content | None = None


class ComparedNode(msgspec.Struct, frozen=True, gc=False):
    """A node's identity, place in its tree, scores and steps."""

    node_id: str
    parent_id: str | None
    root_id: str
    trajectory_id: str | None
    session_id: str | None
    agent: str | None
    depth: int
    status: NodeStatusCode
    own_score: Score | None
    aggregate: Score | None
    passed: bool | None
    criteria: dict[str, Any] | None = None
    steps: tuple[ComparedStep, ...] = ()


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
