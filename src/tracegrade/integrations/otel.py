"""Verdicts back into OpenTelemetry: ``gen_ai.evaluation.result`` events over OTLP/HTTP.

One event per judged step and one per trajectory, with the GenAI convention's attributes (evaluation name,
score value and label, the rationale as explanation, capped). A trajectory imported from OpenTelemetry
(``tracegrade import otel``) keeps each step's trace and span id in ``extra.otel``; its events carry them as
their trace context, so a tracing backend shows each verdict under the span it grades::

    results = read_results(Path("run"))
    sent = export_evaluations(results)            # to $OTEL_EXPORTER_OTLP_(LOGS_)ENDPOINT

The endpoint comes from the standard variables, as for the judge metrics; headers and timeout too.
OpenTelemetry is imported only when events are sent.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracegrade._io import JsonProblem, loads
from tracegrade.atif import EvaluationResults
from tracegrade.atif.scoring import NodeResult, StepResult, StepStatus
from tracegrade.errors import ConfigError, InputError, OutputError
from tracegrade.runs import MAX_INPUT_BYTES, UnreadableFile, read_capped

__all__ = [
    "EVENT_NAME",
    "MAX_EXPLANATION_CHARS",
    "STEP_EVALUATION",
    "TRAJECTORY_EVALUATION",
    "EvaluationEvent",
    "evaluation_events",
    "export_evaluations",
    "logs_endpoint",
]

EVENT_NAME = "gen_ai.evaluation.result"
STEP_EVALUATION = "tracegrade.step"
"""``gen_ai.evaluation.name`` of a step verdict (the step score in [0, 1])."""
TRAJECTORY_EVALUATION = "tracegrade.trajectory"
"""``gen_ai.evaluation.name`` of a trajectory verdict (its roll-up over the sub-agent tree)."""
MAX_EXPLANATION_CHARS = 1000
"""Longest ``gen_ai.evaluation.explanation``; a longer rationale is cut and ends with an ellipsis."""
_BATCH = 512
_SCOPE = "tracegrade.evaluations"


@dataclass(frozen=True, slots=True)
class EvaluationEvent:
    """One ``gen_ai.evaluation.result`` event, ready to emit."""

    attributes: dict[str, str | float | int]
    trace_id: str | None = None
    """The graded span's trace (32 hex digits), when the trajectory came from OpenTelemetry."""
    span_id: str | None = None
    """The graded span (16 hex digits): the event's parent."""


def logs_endpoint(environ: Mapping[str, str] | None = None) -> str | None:
    """The OTLP/HTTP logs URL from ``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
    env = os.environ if environ is None else environ
    specific = env.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "").strip()
    if specific:
        return specific
    generic = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    return generic.rstrip("/") + "/v1/logs" if generic else None


def evaluation_events(results: EvaluationResults) -> list[EvaluationEvent]:
    """The events of a run: each scored or failed step, then each trajectory with a verdict.

    Raises:
        InputError: a trajectory file the results name cannot be read again (it moved or changed).
    """
    sources = _Sources()
    events: list[EvaluationEvent] = []
    for node in results.nodes:
        document = sources.trajectory(node)
        steps = document.get("steps") if isinstance(document, dict) else None
        for step in node.steps:
            if step.status in (StepStatus.SCORED, StepStatus.FAILED):
                events.append(_step_event(results.job_id, node, step, _step_origin(steps, step)))
        verdict = _node_event(results.job_id, node, _origin(document))
        if verdict is not None:
            events.append(verdict)
    return events


def _step_origin(steps: Any, step: StepResult) -> dict[str, Any]:
    if step.segment != 0 or not isinstance(steps, list) or not 1 <= step.step_id <= len(steps):
        return {}
    return _origin(steps[step.step_id - 1])


def _origin(holder: Any) -> dict[str, Any]:
    extra = holder.get("extra") if isinstance(holder, dict) else None
    otel = extra.get("otel") if isinstance(extra, dict) else None
    return otel if isinstance(otel, dict) else {}


def _step_event(job_id: str, node: NodeResult, step: StepResult, origin: dict[str, Any]) -> EvaluationEvent:
    attributes: dict[str, str | float | int] = {"gen_ai.evaluation.name": STEP_EVALUATION}
    if step.status is StepStatus.SCORED and step.score is not None:
        attributes["gen_ai.evaluation.score.value"] = float(step.score)
        attributes["gen_ai.evaluation.score.label"] = "fail" if step.failure_candidate else "pass"
        if step.rationale:
            attributes["gen_ai.evaluation.explanation"] = _capped(step.rationale)
    else:
        attributes["error.type"] = step.error_code or "_OTHER"
    if isinstance(origin.get("response_id"), str):
        attributes["gen_ai.response.id"] = origin["response_id"]
    attributes.update(_where(job_id, node))
    attributes["tracegrade.step_index"] = step.index
    if step.category and step.category != "none":
        attributes["tracegrade.failure_category"] = step.category
    return _event(attributes, origin)


def _node_event(job_id: str, node: NodeResult, origin: dict[str, Any]) -> EvaluationEvent | None:
    attributes: dict[str, str | float | int] = {"gen_ai.evaluation.name": TRAJECTORY_EVALUATION}
    if node.aggregate is not None:
        attributes["gen_ai.evaluation.score.value"] = float(node.aggregate)
        if node.passed is not None:
            attributes["gen_ai.evaluation.score.label"] = "pass" if node.passed else "fail"
        own = "none" if node.own_score is None else f"{node.own_score:.4f}"
        attributes["gen_ai.evaluation.explanation"] = (
            f"{node.subtree_step_count} steps scored over the trajectory and its sub-agents "
            f"(own steps: {node.step_count}, own score {own}); complete: {str(node.complete).lower()}"
        )
    elif node.status.value in ("failed", "invalid", "unscored"):
        attributes["error.type"] = node.error_code or node.status.value
    else:
        return None
    attributes.update(_where(job_id, node))
    return _event(attributes, origin)


def _where(job_id: str, node: NodeResult) -> dict[str, str]:
    found = {"tracegrade.job_id": job_id, "tracegrade.node_id": node.node_id}
    if node.trajectory_id:
        found["tracegrade.trajectory_id"] = node.trajectory_id
    return found


def _event(attributes: dict[str, str | float | int], origin: dict[str, Any]) -> EvaluationEvent:
    trace_id, span_id = origin.get("trace_id"), origin.get("span_id")
    if isinstance(trace_id, str) and isinstance(span_id, str) and len(trace_id) == 32 and len(span_id) == 16:
        return EvaluationEvent(attributes, trace_id, span_id)
    return EvaluationEvent(attributes)


def _capped(text: str) -> str:
    return text if len(text) <= MAX_EXPLANATION_CHARS else text[: MAX_EXPLANATION_CHARS - 1] + "…"


class _Sources:
    """The trajectory documents behind result nodes, each file read once."""

    def __init__(self) -> None:
        self.documents: dict[tuple[str, int], Any] = {}

    def trajectory(self, node: NodeResult) -> Any:
        """The node's trajectory as JSON (the root document, then its ``location`` pointer); None if invalid."""
        if node.status.value == "invalid":
            return None
        path = Path(node.source_path)
        line = _line(node.root_id) if path.suffix == ".jsonl" else 0
        if (node.source_path, line) not in self.documents:
            try:
                data = read_capped(path, MAX_INPUT_BYTES)
                document = loads(data.split(b"\n")[line - 1] if line else data)
            except (UnreadableFile, IndexError, JsonProblem):
                raise InputError(f"{path}: cannot read the trajectory behind {node.node_id} again") from None
            self.documents[(node.source_path, line)] = document
        return _at(self.documents[(node.source_path, line)], node.location)


def _line(root_id: str) -> int:
    """The line of a JSONL root document, from its node id (``path.jsonl:LINE``)."""
    number = root_id.rsplit(":", 1)[-1]
    return int(number) if number.isdigit() else 1


def _at(document: Any, pointer: str) -> Any:
    """The part of ``document`` at a JSON pointer such as ``/subagent_trajectories/0``."""
    current = document
    for part in pointer.split("/")[1:] if pointer else ():
        if isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        elif isinstance(current, dict) and part in current:
            current = current[part]
        else:
            return None
    return current


def export_evaluations(
    results: EvaluationResults, *, environ: Mapping[str, str] | None = None, service_name: str = "tracegrade"
) -> int:
    """Send the run's evaluation events to the configured OTLP/HTTP logs endpoint; return how many.

    Raises:
        ConfigError: no OTLP endpoint is configured.
        InputError: a trajectory file the results name cannot be read again.
        OutputError: the endpoint did not accept every event.
    """
    endpoint = logs_endpoint(environ)
    if endpoint is None:
        raise ConfigError("OpenTelemetry evaluations: set OTEL_EXPORTER_OTLP_ENDPOINT (or ..._LOGS_ENDPOINT)")
    events = evaluation_events(results)
    failed = _send(events, endpoint, service_name)
    if failed:
        raise OutputError(f"{endpoint}: {failed} of {len(events)} evaluation events were not accepted",
                          code="otlp_export_failed")
    return len(events)


class _Counting:
    """Wraps the OTLP exporter to count the records it delivered."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.delivered = 0

    def export(self, batch: Sequence[Any]) -> Any:
        outcome = self.inner.export(batch)
        if getattr(outcome, "name", "") == "SUCCESS":
            self.delivered += len(batch)
        return outcome

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return bool(self.inner.force_flush(timeout_millis))


def _send(events: list[EvaluationEvent], endpoint: str, service_name: str) -> int:
    """Emit every event through an SDK logger provider; the number of events not delivered."""
    from opentelemetry._logs import LogRecord
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.resources import Resource

    exporter = _Counting(OTLPLogExporter(endpoint=endpoint))
    provider = LoggerProvider(resource=Resource.create({"service.name": service_name}))
    processor = BatchLogRecordProcessor(
        exporter,  # type: ignore[arg-type]  # duck-typed: the exporter base class was renamed across SDK versions
        max_export_batch_size=_BATCH,
        max_queue_size=max(len(events), _BATCH),  # room for every event: a full queue drops records
    )
    provider.add_log_record_processor(processor)
    logger = provider.get_logger(_SCOPE)
    now = time.time_ns()
    for event in events:
        logger.emit(LogRecord(timestamp=now, observed_timestamp=now, context=_context(event),
                              event_name=EVENT_NAME, attributes=event.attributes))
    provider.force_flush()
    provider.shutdown()
    return len(events) - exporter.delivered


def _context(event: EvaluationEvent) -> Any:
    from opentelemetry.context import Context
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context

    if event.trace_id is None or event.span_id is None:
        return Context()
    parent = SpanContext(int(event.trace_id, 16), int(event.span_id, 16), is_remote=True,
                         trace_flags=TraceFlags(TraceFlags.SAMPLED))
    return set_span_in_context(NonRecordingSpan(parent), Context())
