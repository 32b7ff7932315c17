"""Hand-written OTLP/JSON traces for the importer tests: spans built from plain attribute dicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

TRACE = "0af7651916cd43dd8448eb211c80319c"
BASE_NS = 1_767_261_600_000_000_000


def value(raw: Any) -> dict[str, Any]:
    """An OTLP AnyValue."""
    if isinstance(raw, bool):
        return {"boolValue": raw}
    if isinstance(raw, int):
        return {"intValue": str(raw)}
    if isinstance(raw, float):
        return {"doubleValue": raw}
    if isinstance(raw, list):
        return {"arrayValue": {"values": [value(v) for v in raw]}}
    if isinstance(raw, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": value(v)} for k, v in raw.items()]}}
    return {"stringValue": raw}


def attrs(raw: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": value(v)} for k, v in raw.items()]


def span(span_id: int, parent: int | None, name: str, at_ms: int, attributes: dict[str, Any], *,
         error: str | None = None, events: list[dict[str, Any]] | None = None, trace: str = TRACE) -> dict[str, Any]:
    """One OTLP span: ids from small integers, times in milliseconds after BASE_NS."""
    found: dict[str, Any] = {"traceId": trace, "spanId": f"{span_id:016x}", "name": name, "kind": 1,
                             "startTimeUnixNano": str(BASE_NS + at_ms * 1_000_000),
                             "endTimeUnixNano": str(BASE_NS + (at_ms + 1) * 1_000_000),
                             "attributes": attrs(attributes), "status": {}}
    if parent is not None:
        found["parentSpanId"] = f"{parent:016x}"
    if error is not None:
        found["status"] = {"code": 2, "message": error}
    if events:
        found["events"] = events
    return found


def event(name: str, at_ms: int, attributes: dict[str, Any]) -> dict[str, Any]:
    return {"timeUnixNano": str(BASE_NS + at_ms * 1_000_000), "name": name, "attributes": attrs(attributes)}


def request(spans: list[dict[str, Any]], service: str = "test-service") -> dict[str, Any]:
    """An ExportTraceServiceRequest holding ``spans``."""
    return {"resourceSpans": [{"resource": {"attributes": attrs({"service.name": service})},
                               "scopeSpans": [{"scope": {"name": "tests"}, "spans": spans}]}]}


def messages(*items: tuple[str, str]) -> str:
    """``gen_ai.*.messages`` JSON text from ``(role, text)`` pairs."""
    return orjson.dumps([{"role": r, "parts": [{"type": "text", "content": t}]} for r, t in items]).decode()


def tool_call(call_id: str, name: str, arguments: dict[str, Any], text: str = "") -> str:
    """``gen_ai.output.messages`` JSON text of one answer asking for one tool call."""
    parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
    parts.append({"type": "tool_call", "id": call_id, "name": name, "arguments": arguments})
    return orjson.dumps([{"role": "assistant", "parts": parts}]).decode()


def chat(span_id: int, parent: int | None, at_ms: int, inputs: str, outputs: str, **more: Any) -> dict[str, Any]:
    """A GenAI ``chat`` span with the newer message attributes and usage."""
    return span(span_id, parent, "chat test-model", at_ms, {
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "test-model", "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5, "gen_ai.input.messages": inputs, "gen_ai.output.messages": outputs, **more})


def tool(span_id: int, parent: int | None, at_ms: int, name: str, call_id: str | None, result: str,
         **more: Any) -> dict[str, Any]:
    found = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.result": result}
    if call_id is not None:
        found["gen_ai.tool.call.id"] = call_id
    return span(span_id, parent, f"execute_tool {name}", at_ms, {**found, **more})


def agent(span_id: int, parent: int | None, at_ms: int, name: str, **more: Any) -> dict[str, Any]:
    return span(span_id, parent, f"invoke_agent {name}", at_ms,
                {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name, **more})


def write(folder: Path, name: str, document: Any) -> Path:
    path = folder / name
    path.write_bytes(orjson.dumps(document))
    return path
