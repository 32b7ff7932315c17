from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tracegrade.atif.importing._genai import (
    adk_inputs,
    adk_outputs,
    event_messages,
    legacy_inputs,
    legacy_outputs,
    semconv_inputs,
    semconv_outputs,
    span_role,
    tool_run,
    usage,
)
from tracegrade.atif.importing._messages import Message, RequestedToolCall
from tracegrade.atif.importing._spans import Span, SpanEvent, Tally


def make(attributes: dict[str, Any], name: str = "", events: list[SpanEvent] | None = None,
         error: str | None = None) -> Span:
    return Span("a" * 32, "b" * 16, None, name, 1, 2, attributes, error, events or [])


def fixture(corpus: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = orjson.loads((corpus / "traces" / name).read_bytes())
    return loaded


@pytest.mark.parametrize(
    ("attributes", "name", "role"),
    [
        ({"gen_ai.operation.name": "invoke_agent"}, "", "agent"),
        ({"gen_ai.operation.name": "invoke_workflow"}, "", "agent"),
        ({"openinference.span.kind": "AGENT"}, "", "agent"),
        ({"gen_ai.operation.name": "execute_tool"}, "", "tool"),
        ({"openinference.span.kind": "TOOL"}, "", "tool"),
        ({"gen_ai.operation.name": "chat"}, "", "model"),
        ({"openinference.span.kind": "LLM"}, "", "model"),
        ({"gen_ai.prompt.0.role": "user"}, "openai.chat", "model"),
        ({"gcp.vertex.agent.llm_request": '{"contents": []}'}, "call_llm", "model"),
        ({"gen_ai.operation.name": "embeddings"}, "", None),
        ({"openinference.span.kind": "CHAIN"}, "", None),
        ({"http.method": "GET"}, "GET /", None),
        ({}, "execute_tool search", "tool"),
    ],
)
def test_span_roles(attributes: dict[str, Any], name: str, role: str | None) -> None:
    assert span_role(make(attributes, name)) == role


def test_newer_message_attributes_of_a_real_chat_span(shared_corpus: Path) -> None:
    attributes = fixture(shared_corpus, "otel-genai/openinference/otel_genai_client_span_tool_calls.json")
    tally = Tally()
    inputs = semconv_inputs(attributes, tally)
    assert inputs == [
        Message("user", "Weather in Paris?"),
        Message("assistant", "Absolutely! Let me check the weather for you.",
                tool_calls=[RequestedToolCall("1234", "get_weather", {"location": "Paris"})]),
        Message("tool", "rainy, 57°F", call_id="1234"),
    ]
    (answer,) = semconv_outputs(attributes, tally) or []
    assert answer.text.startswith("The weather in Paris is currently rainy")
    assert usage(attributes) is not None and usage(attributes).prompt == 97  # type: ignore[union-attr]


def test_system_instructions_come_first() -> None:
    tally = Tally()
    found = semconv_inputs({"gen_ai.system_instructions": '[{"type": "text", "content": "Be brief."}]',
                            "gen_ai.input.messages": '[{"role": "user", "parts": []}]'}, tally)
    assert [m.role for m in found or []] == ["system", "user"] and found and found[0].text == "Be brief."


def test_a_message_attribute_that_is_not_json_is_counted() -> None:
    tally = Tally()
    assert semconv_inputs({"gen_ai.input.messages": "{oops"}, tally) is None
    assert tally.as_dict() == {"attribute gen_ai.input.messages that is not a list of messages": 1}


def test_any_agent_output_as_text_or_tool_calls() -> None:
    tally = Tally()
    calls = semconv_outputs({"gen_ai.output": '[{"tool.name": "f", "tool.args": "{\\"a\\": 1}"}]',
                             "gen_ai.output.type": "json"}, tally)
    assert calls == [Message("assistant", tool_calls=[RequestedToolCall(None, "f", {"a": 1})])]
    assert semconv_outputs({"gen_ai.output": "done", "gen_ai.output.type": "text"}, tally) == [
        Message("assistant", "done")]


def test_indexed_legacy_prompt_and_completion_attributes() -> None:
    tally = Tally()
    flat = {
        "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "list releases",
        "gen_ai.prompt.1.role": "assistant", "gen_ai.prompt.1.tool_calls.0.id": "c1",
        "gen_ai.prompt.1.tool_calls.0.name": "helm_list", "gen_ai.prompt.1.tool_calls.0.arguments": "{}",
        "gen_ai.prompt.2.role": "tool", "gen_ai.prompt.2.tool_call_id": "c1", "gen_ai.prompt.2.content": "[]",
        "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "none found",
    }
    assert [(m.role, m.text, m.call_id) for m in legacy_inputs(flat, tally) or []] == [
        ("user", "list releases", None), ("assistant", "", None), ("tool", "[]", "c1")]
    assert legacy_outputs(flat, tally) == [Message("assistant", "none found")]


def test_event_based_messages_as_log_bodies_and_span_event_attributes() -> None:
    tally = Tally()
    events = [
        SpanEvent("gen_ai.system.message", 1, {"gen_ai.system": "openai"}, {"content": "sys"}),
        SpanEvent("gen_ai.user.message", 2, {"content": "hello"}),
        SpanEvent("gen_ai.tool.message", 3, {"id": "c1", "content": "42"}),
        SpanEvent("gen_ai.choice", 4, {"index": 0, "message": '{"role": "assistant", "tool_calls": [{"id": "c2", '
                                                             '"function": {"name": "f", "arguments": "{}"}}]}'}),
        SpanEvent("something.else", 5, {}),
    ]
    inputs, outputs = event_messages(events, tally)
    assert [(m.role, m.text, m.call_id) for m in inputs or []] == [
        ("system", "sys", None), ("user", "hello", None), ("tool", "42", "c1")]
    assert outputs == [Message("assistant", tool_calls=[RequestedToolCall("c2", "f", {})])]
    assert tally.as_dict() == {"span event 'something.else'": 1}


def test_google_adk_request_and_response() -> None:
    tally = Tally()
    request = {"config": {"system_instruction": "Route it."}, "contents": [
        {"role": "user", "parts": [{"text": "refund 42"}]}]}
    response = {"content": {"role": "model", "parts": [{"function_call": {"name": "refund", "args": {"id": "42"}}}]}}
    attributes = {"gcp.vertex.agent.llm_request": orjson.dumps(request).decode(),
                  "gcp.vertex.agent.llm_response": orjson.dumps(response).decode()}
    assert adk_inputs(attributes, tally) == [Message("system", "Route it."), Message("user", "refund 42")]
    asked = RequestedToolCall(None, "refund", {"id": "42"})
    assert adk_outputs(attributes, tally) == [Message("assistant", tool_calls=[asked])]


def test_usage_reads_every_convention_once() -> None:
    found = usage({"llm.token_count.prompt": 9, "llm.token_count.completion": 3,
                   "llm.token_count.prompt_details.cache_read": 4, "llm.cost.total": 0.5})
    assert found is not None and (found.prompt, found.completion, found.cached, found.cost) == (9, 3, 4, 0.5)
    cost = usage({"gen_ai.usage.input_tokens": 1, "gen_ai.usage.input_cost": 0.25, "gen_ai.usage.output_cost": 0.5})
    assert cost is not None and cost.cost == 0.75
    assert usage({"gen_ai.request.model": "m"}) is None


def test_a_tool_run_of_a_real_execute_tool_span(shared_corpus: Path) -> None:
    run = tool_run(make(fixture(shared_corpus, "otel-genai/openinference/otel_genai_tool_execution_span.json")))
    assert (run.call_id, run.name, run.arguments) == ("1234", "get_weather", {"city": "New York"})
    assert run.result.startswith('{"status": "success"')


def test_tool_runs_of_adk_and_of_a_bare_execute_tool_span() -> None:
    adk = tool_run(make({"gen_ai.tool.name": "t", "gen_ai.tool.call.id": "<not specified>",
                         "gcp.vertex.agent.tool_call_args": '{"a": 1}', "error.type": "ValueError"},
                        events=[SpanEvent("exception", 1, {"exception.type": "ValueError",
                                                           "exception.message": "bad id"})], error=""))
    assert (adk.call_id, adk.arguments, adk.error) == (None, {"a": 1}, "ValueError: bad id")
    assert tool_run(make({}, name="execute_tool lookup")).name == "lookup"
