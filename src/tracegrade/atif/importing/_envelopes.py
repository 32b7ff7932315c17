"""Trace files → spans: OTLP/JSON requests, Tempo and Jaeger exports, span lists and lines, attribute maps.

Accepted shapes, one JSON document per file or one per line (the collector's file exporter writes a request
per line): an OTLP ``ExportTraceServiceRequest`` (``resourceSpans``, with ``resourceLogs`` for the GenAI
events), Grafana Tempo's pre-1.0 names (``batches`` / ``instrumentationLibrarySpans``), Jaeger's query API
(``data[].spans``), a span list (``{"spans": [...]}`` or a JSON array) or one span per line, each either an
OTLP span or an SDK dump (``ReadableSpan.to_json()``, any-agent), and a bare map of one span's attributes.
Anything else, or a field of the wrong type, is an :class:`InputError` naming the file, the line and the
JSON pointer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tracegrade._io import JsonProblem, loads
from tracegrade.atif.importing._spans import Span, SpanEvent, Tally, norm_id
from tracegrade.errors import InputError
from tracegrade.runs import MAX_INPUT_BYTES, read_capped

__all__ = ["LogEvent", "TraceFile", "read_trace_file"]

_LINE_SUFFIXES = (".jsonl", ".ndjson")
_CONVENTION_PREFIXES = ("gen_ai.", "llm.", "openinference.")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_ERROR_CODES = frozenset({2, "2", "STATUS_CODE_ERROR", "ERROR", "error", "Error", "StatusCode.ERROR"})


@dataclass(slots=True)
class LogEvent:
    """A log record of an OTLP request, to be joined to its span."""

    trace_id: str | None
    span_id: str | None
    event: SpanEvent


@dataclass(slots=True)
class TraceFile:
    """The spans and log records of one input file."""

    path: Path
    formats: set[str] = field(default_factory=set)
    spans: list[Span] = field(default_factory=list)
    logs: list[LogEvent] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)


class _Bad(Exception):
    """A field of the wrong shape, at a JSON pointer inside the current document."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(message)
        self.pointer = pointer


class _NotATrace(_Bad):
    """A document of none of the accepted shapes."""


class _Slow(Exception):
    """The fast reader met something unusual: the checking reader takes over (and names the place if bad)."""


_FAST_FAILS = (_Slow, _Bad, KeyError, TypeError, ValueError, AttributeError)
_HEX32 = re.compile(r"[0-9a-f]{32}").fullmatch
_HEX16 = re.compile(r"[0-9a-f]{16}").fullmatch
_NO_SPAN, _NO_TRACE = "0" * 16, "0" * 32


def read_trace_file(path: Path, *, found_in_folder: bool = False) -> TraceFile:
    """Read every span and log record of one file.

    A file found in a folder whose JSON is of no accepted shape (a README's data, a truth file) is skipped
    and counted in its report; one named on its own is an error.

    Raises:
        InputError: the file cannot be read, is not JSON, or is not one of the accepted shapes (the message
            names the file, the line for line-per-document files, and the JSON pointer).
    """
    data = read_capped(path, MAX_INPUT_BYTES)
    found = TraceFile(path)
    reader = _Reader(found)
    for where, raw in _documents(path, data):
        try:
            reader.document(raw, where)
        except _NotATrace as bad:
            if not found_in_folder:
                raise InputError(f"{where}: {bad}") from None
            found.tally.add("JSON document that is not a trace (skipped)")
        except _Bad as bad:
            raise InputError(f"{where}: {bad.pointer or '/'}: {bad}") from None
    return found


def _documents(path: Path, data: bytes) -> list[tuple[str, Any]]:
    """``(where, value)`` of each JSON document of the file: the whole file, or one per line."""
    if path.suffix not in _LINE_SUFFIXES:
        try:
            return [(str(path), loads(data))]
        except JsonProblem as problem:
            first = data.lstrip().split(b"\n", 1)[0]
            if not (problem.code == "invalid_json" and _parses(first) and b"\n" in data.strip()):
                raise _json_error(path, problem) from None
    documents = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            try:
                documents.append((f"{path}:{number}", loads(line)))
            except JsonProblem as problem:
                raise _json_error(path, problem, number) from None
    return documents


def _parses(text: bytes) -> bool:
    try:
        loads(text)
    except JsonProblem:
        return False
    return True


def _json_error(path: Path, problem: JsonProblem, number: int | None = None) -> InputError:
    """The error for text that is not strict JSON, placed as ``path:line:column``; ``number``: the file's line."""
    line = problem.line if number is None else number  # one line of a line-per-document file is its line 1
    column = f":{problem.column}" if line is not None and problem.column is not None else ""
    place = "" if line is None else f":{line}{column}"
    reason = problem.describe() if problem.pointer is not None else problem.message
    return InputError(f"{path}{place}: not valid JSON: {reason}", code=problem.code)


class _Reader:
    """Turns decoded documents into spans and log records, counting positions for a stable order."""

    def __init__(self, found: TraceFile) -> None:
        self.found = found
        self.order = 0
        self.traces: set[str] = set()
        """Trace ids already checked by the fast reader."""

    def document(self, value: Any, where: str) -> None:
        """Read one decoded document of any accepted shape."""
        if isinstance(value, list):
            self._span_list(value, where, "")
        elif not isinstance(value, dict):
            raise _NotATrace("", f"expected a trace object or a list of spans, got {_kind(value)}")
        elif "resourceSpans" in value or "resourceLogs" in value:
            self._request(value, where, "resourceSpans", "scopeSpans", "scope", "otlp-json")
        elif "batches" in value:
            self._request(value, where, "batches", "instrumentationLibrarySpans", "instrumentationLibrary", "tempo")
        elif isinstance(value.get("data"), list):
            self._jaeger(value["data"], where)
        elif isinstance(value.get("spans"), list):
            self._span_list(value["spans"], where, "/spans")
        elif _is_span(value):
            self._span_list([value], where, "", single=True)
        elif any(isinstance(key, str) and key.startswith(_CONVENTION_PREFIXES) for key in value):
            self._attribute_map(value, where)
        else:
            keys = ", ".join(sorted(map(str, value))[:6])
            expected = "resourceSpans, batches, data, spans or span fields"
            raise _NotATrace("", f"not a trace: expected {expected}, got keys {keys}")

    def _next(self) -> int:
        self.order += 1
        return self.order

    def _request(self, value: dict[str, Any], where: str, top: str, middle: str, scope_key: str, kind: str) -> None:
        self.found.formats.add(kind)
        for i, resource_spans in enumerate(_list(value, top, "")):
            pointer = f"/{top}/{i}"
            resource = _resource(_dict(resource_spans, pointer), pointer)
            for j, scope_spans in enumerate(_list(resource_spans, middle, pointer)):
                inner = f"{pointer}/{middle}/{j}"
                scope = _dict(_dict(scope_spans, inner).get(scope_key) or {}, f"{inner}/{scope_key}")
                name = str(scope.get("name") or "")
                for k, raw in enumerate(_list(scope_spans, "spans", inner)):
                    try:
                        span = _fast_otlp_span(raw, where, self._next(), resource, name, self.traces)
                    except _FAST_FAILS:
                        span = _otlp_span(raw, f"{inner}/spans/{k}", where, self.order)
                        span.resource, span.scope = resource, name
                    self.found.spans.append(span)
        self._logs(value, where)

    def _logs(self, value: dict[str, Any], where: str) -> None:
        for i, resource_logs in enumerate(_list(value, "resourceLogs", "")):
            pointer = f"/resourceLogs/{i}"
            for j, scope_logs in enumerate(_list(_dict(resource_logs, pointer), "scopeLogs", pointer)):
                inner = f"{pointer}/scopeLogs/{j}"
                for k, raw in enumerate(_list(_dict(scope_logs, inner), "logRecords", inner)):
                    self.found.logs.append(_log_record(raw, f"{inner}/logRecords/{k}"))

    def _span_list(self, spans: list[Any], where: str, pointer: str, single: bool = False) -> None:
        self.found.formats.add("span" if single else "span-list")
        for index, raw in enumerate(spans):
            inner = pointer if single else f"{pointer}/{index}"
            item = _dict(raw, inner)
            if "context" in item:
                span = _sdk_span(item, inner, where, self._next())
            elif "spanID" in item:
                span = _jaeger_span(item, inner, where, self._next(), {})
            else:
                span = _otlp_span(item, inner, where, self._next())
            self.found.spans.append(span)

    def _jaeger(self, traces: list[Any], where: str) -> None:
        self.found.formats.add("jaeger")
        for i, raw in enumerate(traces):
            pointer = f"/data/{i}"
            trace = _dict(raw, pointer)
            processes = _dict(trace.get("processes") or {}, f"{pointer}/processes")
            resources = {pid: _jaeger_process(p, f"{pointer}/processes/{pid}") for pid, p in processes.items()}
            for k, item in enumerate(_list(trace, "spans", pointer)):
                span = _jaeger_span(_dict(item, f"{pointer}/spans/{k}"), f"{pointer}/spans/{k}", where, self._next(),
                                    resources)
                self.found.spans.append(span)

    def _attribute_map(self, value: dict[str, Any], where: str) -> None:
        self.found.formats.add("attribute-map")
        order = self._next()
        self.found.spans.append(Span("", f"{order:016x}", None, "", None, None, dict(value), order=order,
                                     source=where))


def _is_span(value: dict[str, Any]) -> bool:
    return ("traceId" in value and "spanId" in value) or "context" in value or "spanID" in value


_KINDS = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}


def _kind(value: Any) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def _dict(value: Any, pointer: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad(pointer, f"expected an object, got {_kind(value)}")
    return value


def _list(container: dict[str, Any], key: str, pointer: str) -> list[Any]:
    value = container.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Bad(f"{pointer}/{key}", f"expected a list, got {_kind(value)}")
    return value


def _resource(holder: dict[str, Any], pointer: str) -> dict[str, Any]:
    resource = _dict(holder.get("resource") or {}, f"{pointer}/resource")
    return _attributes(resource.get("attributes"), f"{pointer}/resource/attributes")


def _attributes(raw: Any, pointer: str) -> dict[str, Any]:
    """OTLP's ``[{key, value: AnyValue}]`` list as a plain dict."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise _Bad(pointer, f"expected a list of {{key, value}}, got {_kind(raw)}")
    found: dict[str, Any] = {}
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise _Bad(f"{pointer}/{index}", "expected {key: string, value: AnyValue}")
        found[item["key"]] = _any_value(item.get("value"), f"{pointer}/{index}/value")
    return found


def _any_value(value: Any, pointer: str) -> Any:
    """An OTLP AnyValue (``{"stringValue": ...}``, ``{"intValue": "25"}``, arrays, kvlists) as Python."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Bad(pointer, f"expected an AnyValue object, got {_kind(value)}")
    text = value.get("stringValue")
    if text is not None:
        return text
    if "intValue" in value:
        return _integer(value["intValue"], f"{pointer}/intValue")
    if "doubleValue" in value:
        return _double(value["doubleValue"], f"{pointer}/doubleValue")
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        items = _list(_dict(value["arrayValue"] or {}, f"{pointer}/arrayValue"), "values", f"{pointer}/arrayValue")
        return [_any_value(item, f"{pointer}/arrayValue/values/{i}") for i, item in enumerate(items)]
    if "kvlistValue" in value:
        kvlist = _dict(value["kvlistValue"] or {}, f"{pointer}/kvlistValue")
        return _attributes(kvlist.get("values"), f"{pointer}/kvlistValue/values")
    return value.get("bytesValue")


def _integer(value: Any, pointer: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    raise _Bad(pointer, f"expected an integer, got {value!r:.40}")


def _double(value: Any, pointer: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    raise _Bad(pointer, f"expected a number, got {value!r:.40}")


def _nanos(value: Any, pointer: str) -> int | None:
    if value is None or value == "" or value == 0 or value == "0":
        return None
    return _integer(value, pointer)


def _required_id(value: Any, digits: int, pointer: str) -> str:
    found = norm_id(value, digits)
    if found is None:
        raise _Bad(pointer, f"expected {digits} hex digits, got {value!r:.48}")
    return found


def _optional_id(value: Any, digits: int, pointer: str) -> str | None:
    if value is None or value == "":
        return None
    found = norm_id(value, digits)
    if found is None and not (isinstance(value, str) and set(value) == {"0"}):
        raise _Bad(pointer, f"expected {digits} hex digits, got {value!r:.48}")
    return found


def _fast_otlp_span(raw: Any, where: str, order: int, resource: dict[str, Any], scope: str,
                    traces: set[str]) -> Span:
    """An OTLP/JSON span as well-behaved writers produce it, read without building any error location.

    ``traces`` holds the trace ids already checked, to which this span's is added.
    """
    trace, span_id, parent = raw["traceId"], raw["spanId"], raw.get("parentSpanId") or None
    if trace not in traces:
        if not _HEX32(trace) or trace == _NO_TRACE:
            raise _Slow
        traces.add(trace)
    if not _HEX16(span_id) or span_id == _NO_SPAN:
        raise _Slow
    if parent is not None and (not _HEX16(parent) or parent == _NO_SPAN):
        raise _Slow
    attributes: dict[str, Any] = {}
    for item in raw.get("attributes") or ():
        value = item["value"]
        text = value.get("stringValue")
        attributes[item["key"]] = text if text is not None else _any_value(value, "")
    status = raw.get("status")
    error = str(status.get("message") or "") if status and status.get("code") in _ERROR_CODES else None
    start, end = raw.get("startTimeUnixNano"), raw.get("endTimeUnixNano")
    events = raw.get("events")
    return Span(trace, span_id, parent, str(raw.get("name") or ""), int(start) if start else None,
                int(end) if end else None, attributes, error,
                [_otlp_event(e, "") for e in events] if events else [], resource, scope, order, where)


def _otlp_span(raw: dict[str, Any], pointer: str, where: str, order: int) -> Span:
    """One OTLP/JSON span (camelCase fields, hex ids, times as decimal strings or numbers)."""
    raw = _dict(raw, pointer)
    status = _dict(raw.get("status") or {}, f"{pointer}/status")
    error = str(status.get("message") or "") if status.get("code") in _ERROR_CODES else None
    return Span(
        trace_id=_required_id(raw.get("traceId"), 32, f"{pointer}/traceId"),
        span_id=_required_id(raw.get("spanId"), 16, f"{pointer}/spanId"),
        parent_id=_optional_id(raw.get("parentSpanId"), 16, f"{pointer}/parentSpanId"),
        name=str(raw.get("name") or ""),
        start_ns=_nanos(raw.get("startTimeUnixNano"), f"{pointer}/startTimeUnixNano"),
        end_ns=_nanos(raw.get("endTimeUnixNano"), f"{pointer}/endTimeUnixNano"),
        attributes=_attributes(raw.get("attributes"), f"{pointer}/attributes"),
        error=error,
        events=[_otlp_event(e, f"{pointer}/events/{i}") for i, e in enumerate(_list(raw, "events", pointer))],
        order=order,
        source=where,
    )


def _otlp_event(raw: Any, pointer: str) -> SpanEvent:
    event = _dict(raw, pointer)
    return SpanEvent(
        name=str(event.get("name") or ""),
        time_ns=_nanos(event.get("timeUnixNano"), f"{pointer}/timeUnixNano"),
        attributes=_attributes(event.get("attributes"), f"{pointer}/attributes"),
    )


def _log_record(raw: Any, pointer: str) -> LogEvent:
    record = _dict(raw, pointer)
    attributes = _attributes(record.get("attributes"), f"{pointer}/attributes")
    name = record.get("eventName") or attributes.pop("event.name", None) or ""
    time = record.get("timeUnixNano") or record.get("observedTimeUnixNano")
    event = SpanEvent(str(name), _nanos(time, f"{pointer}/timeUnixNano"), attributes,
                      _any_value(record.get("body"), f"{pointer}/body"))
    return LogEvent(_optional_id(record.get("traceId"), 32, f"{pointer}/traceId"),
                    _optional_id(record.get("spanId"), 16, f"{pointer}/spanId"), event)


def _sdk_span(raw: dict[str, Any], pointer: str, where: str, order: int) -> Span:
    """A span as the SDKs dump it: ``context``/``parent`` objects (or ``parent_id``), flat attributes."""
    context = _dict(raw.get("context"), f"{pointer}/context")
    parent = raw.get("parent")
    parent_id = parent.get("span_id") if isinstance(parent, dict) else raw.get("parent_id")
    status = _dict(raw.get("status") or {}, f"{pointer}/status")
    error = str(status.get("description") or "") if status.get("status_code") in _ERROR_CODES else None
    resource = _dict(raw.get("resource") or {}, f"{pointer}/resource")
    return Span(
        trace_id=_required_id(context.get("trace_id"), 32, f"{pointer}/context/trace_id"),
        span_id=_required_id(context.get("span_id"), 16, f"{pointer}/context/span_id"),
        parent_id=_optional_id(parent_id, 16, f"{pointer}/parent"),
        name=str(raw.get("name") or ""),
        start_ns=_sdk_time(raw.get("start_time"), f"{pointer}/start_time"),
        end_ns=_sdk_time(raw.get("end_time"), f"{pointer}/end_time"),
        attributes=dict(_dict(raw.get("attributes") or {}, f"{pointer}/attributes")),
        error=error,
        events=[_sdk_event(e, f"{pointer}/events/{i}") for i, e in enumerate(_list(raw, "events", pointer))],
        resource=dict(_dict(resource.get("attributes") or {}, f"{pointer}/resource/attributes")),
        order=order,
        source=where,
    )


def _sdk_event(raw: Any, pointer: str) -> SpanEvent:
    event = _dict(raw, pointer)
    attributes = dict(_dict(event.get("attributes") or {}, f"{pointer}/attributes"))
    return SpanEvent(str(event.get("name") or ""), _sdk_time(event.get("timestamp"), f"{pointer}/timestamp"),
                     attributes)


def _sdk_time(value: Any, pointer: str) -> int | None:
    """Nanoseconds from an integer or an ISO 8601 string (``ReadableSpan.to_json`` writes ISO)."""
    if isinstance(value, str) and not value.strip().isdigit():
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise _Bad(pointer, f"expected nanoseconds or an ISO 8601 time, got {value!r:.40}") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return (moment - _EPOCH) // _MICROSECOND * 1000
    return _nanos(value, pointer)


def _jaeger_process(raw: Any, pointer: str) -> dict[str, Any]:
    process = _dict(raw, pointer)
    found = _tags(process.get("tags"), f"{pointer}/tags")
    if process.get("serviceName"):
        found["service.name"] = process["serviceName"]
    return found


def _jaeger_span(raw: dict[str, Any], pointer: str, where: str, order: int, resources: dict[str, Any]) -> Span:
    """A Jaeger span: ``references`` for the parent, microsecond times, typed ``tags`` and ``logs``."""
    tags = _tags(raw.get("tags"), f"{pointer}/tags")
    failed = tags.pop("error", False) in (True, "true") or tags.get("otel.status_code") == "ERROR"
    message = tags.pop("otel.status_description", "")
    scope = str(tags.pop("otel.scope.name", ""))
    for structural in ("otel.status_code", "span.kind", "otel.scope.version"):
        tags.pop(structural, None)
    parents = [r for r in _list(raw, "references", pointer) if isinstance(r, dict) and r.get("refType") == "CHILD_OF"]
    start = _nanos(raw.get("startTime"), f"{pointer}/startTime")
    duration = _nanos(raw.get("duration"), f"{pointer}/duration")
    return Span(
        trace_id=_required_id(raw.get("traceID"), 32, f"{pointer}/traceID"),
        span_id=_required_id(raw.get("spanID"), 16, f"{pointer}/spanID"),
        parent_id=_optional_id(parents[0].get("spanID"), 16, f"{pointer}/references/0/spanID") if parents else None,
        name=str(raw.get("operationName") or ""),
        start_ns=None if start is None else start * 1000,
        end_ns=None if start is None else (start + (duration or 0)) * 1000,
        attributes=tags,
        error=str(message or "") if failed else None,
        events=[_jaeger_log(e, f"{pointer}/logs/{i}") for i, e in enumerate(_list(raw, "logs", pointer))],
        resource=resources.get(str(raw.get("processID")), {}),
        scope=scope,
        order=order,
        source=where,
    )


def _jaeger_log(raw: Any, pointer: str) -> SpanEvent:
    log = _dict(raw, pointer)
    fields = _tags(log.get("fields"), f"{pointer}/fields")
    time = _nanos(log.get("timestamp"), f"{pointer}/timestamp")
    return SpanEvent(str(fields.pop("event", "") or ""), None if time is None else time * 1000, fields)


def _tags(raw: Any, pointer: str) -> dict[str, Any]:
    """Jaeger's ``[{key, type, value}]`` as a dict, numbers and booleans given their types."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise _Bad(pointer, f"expected a list of tags, got {_kind(raw)}")
    found: dict[str, Any] = {}
    for index, tag in enumerate(raw):
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            raise _Bad(f"{pointer}/{index}", "expected {key, type, value}")
        value, kind = tag.get("value"), tag.get("type")
        if kind == "int64" and isinstance(value, str):
            value = _integer(value, f"{pointer}/{index}/value")
        elif kind == "float64" and isinstance(value, str):
            value = _double(value, f"{pointer}/{index}/value")
        elif kind == "bool" and isinstance(value, str):
            value = value.lower() == "true"
        found[tag["key"]] = value
    return found
