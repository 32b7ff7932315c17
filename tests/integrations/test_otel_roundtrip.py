"""Round trip: spans recorded with the real OpenTelemetry SDK → import → judge → verdicts under those spans."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from tests.integrations.servers import _Recorder, url_of
from tests.integrations.test_otel import received
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer

QUESTION = "Which planet is largest?"
ASKED = json.dumps([{"role": "user", "parts": [{"type": "text", "content": QUESTION}]}])


def record(provider: TracerProvider) -> None:
    """An instrumented agent run: one agent span, two chat spans and a failing then a working tool."""
    tracer = provider.get_tracer("example.agent")
    with tracer.start_as_current_span("invoke_agent astronomer", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "astronomer"}):
        with tracer.start_as_current_span("chat m", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 12,
                "gen_ai.usage.output_tokens": 7,
                "gen_ai.input.messages": ASKED,
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                    {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"q": "planets"}}]}])}):
            pass
        with tracer.start_as_current_span("execute_tool lookup", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "c1",
                "gen_ai.tool.call.result": "Jupiter: 139,820 km"}) as tool:
            tool.set_status(Status(StatusCode.OK))
        with tracer.start_as_current_span("chat m", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                "gen_ai.input.messages": ASKED,
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                    {"type": "text", "content": "Jupiter."}]}])}):
            pass


def exported_spans(receiver: _Recorder) -> list[dict[str, str]]:
    requests = [ExportTraceServiceRequest.FromString(body) for path, body in receiver.posts if path == "/v1/traces"]
    return [{"trace_id": s.trace_id.hex(), "span_id": s.span_id.hex(), "name": s.name}
            for r in requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]


def judge_with_evaluations(trajectories: Path, run: Path, judge: ScriptedJudgeServer) -> int:
    return run_app(app, ["judge", str(trajectories), "--judge-url", judge.base_url, "--judge-model", "m",
                         "-o", str(run), "--no-cache", "-q", "--otel-evaluations"])


def test_sdk_spans_over_otlp_come_back_with_each_verdict_under_its_span(
    tmp_path: Path, sink: _Recorder, judge: ScriptedJudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "astronomy-app"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=url_of(sink) + "/v1/traces")))
    record(provider)
    provider.shutdown()
    spans = {s["span_id"]: s for s in exported_spans(sink)}
    assert len(spans) == 4
    # what the receiver got, as OTLP/JSON (protobuf's JSON mapping: base64 ids, camelCase fields)
    documents = [MessageToDict(ExportTraceServiceRequest.FromString(body)) for path, body in sink.posts
                 if path == "/v1/traces"]
    (tmp_path / "trace.json").write_bytes(b"\n".join(orjson.dumps(d) for d in documents) + b"\n")
    assert run_app(app, ["import", "otel", str(tmp_path / "trace.json"), "-o", str(tmp_path / "in"), "-q"]) == 0

    sink.posts.clear()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url_of(sink))
    assert judge_with_evaluations(tmp_path / "in" / "trajectories", tmp_path / "run", judge) == 0
    events = received(sink)
    steps = [e for e in events if e["attributes"]["gen_ai.evaluation.name"] == "tracegrade.step"]
    (trajectory,) = [e for e in events if e["attributes"]["gen_ai.evaluation.name"] == "tracegrade.trajectory"]
    trace = {s["trace_id"] for s in spans.values()}
    assert {e["trace_id"] for e in events} == trace
    assert [spans[e["span_id"]]["name"] for e in steps] == ["chat m", "chat m", "chat m"]  # user, call, call
    assert spans[trajectory["span_id"]]["name"] == "invoke_agent astronomer"
    results = orjson.loads((tmp_path / "run" / "evaluation_results.json").read_bytes())
    scored = [s for node in results["nodes"] for s in node["steps"] if s["status"] == "scored"]
    assert [e["attributes"]["gen_ai.evaluation.score.value"] for e in steps] == [s["score"] for s in scored]


def test_sdk_span_dumps_one_per_line_come_back_the_same_way(
    tmp_path: Path, sink: _Recorder, judge: ScriptedJudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    record(provider)
    finished: tuple[ReadableSpan, ...] = memory.get_finished_spans()
    lines = "".join(json.dumps(json.loads(s.to_json())) + "\n" for s in finished)  # ReadableSpan.to_json, one a line
    (tmp_path / "spans.jsonl").write_text(lines)
    assert run_app(app, ["import", "otel", str(tmp_path / "spans.jsonl"), "-o", str(tmp_path / "in"), "-q"]) == 0
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", url_of(sink) + "/v1/logs")
    assert judge_with_evaluations(tmp_path / "in" / "trajectories", tmp_path / "run", judge) == 0
    ids = {format(s.context.span_id, "016x") for s in finished}
    events = received(sink)
    assert len(events) == 4 and all(e["span_id"] in ids for e in events)  # 3 steps and the trajectory
