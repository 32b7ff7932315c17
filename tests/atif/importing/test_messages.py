from __future__ import annotations

from tracegrade.atif.importing._messages import (
    Message,
    RequestedToolCall,
    as_arguments,
    message_from_dict,
    messages_from,
    unflatten,
)
from tracegrade.atif.importing._spans import Tally


def test_genai_parts_text_reasoning_tool_calls_and_results() -> None:
    tally = Tally()
    found = message_from_dict({"role": "assistant", "parts": [
        {"type": "reasoning", "content": "think"}, {"type": "text", "content": "doing it"},
        {"type": "tool_call", "id": "c1", "name": "f", "arguments": {"x": 1}}]}, tally)
    assert found == [Message("assistant", "doing it", "think", [RequestedToolCall("c1", "f", {"x": 1})])]
    results = message_from_dict({"role": "tool", "parts": [
        {"type": "tool_call_response", "id": "c1", "response": {"ok": True}},
        {"type": "tool_call_response", "id": "c2", "response": "two"}]}, tally)
    assert [(m.role, m.call_id, m.text) for m in results] == [("tool", "c1", '{"ok":true}'), ("tool", "c2", "two")]


def test_openai_shape_with_json_string_arguments_and_a_tool_message() -> None:
    tally = Tally()
    (call,) = message_from_dict({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c9", "type": "function", "function": {"name": "g", "arguments": '{"q": "a"}'}}]}, tally)
    assert call.tool_calls == [RequestedToolCall("c9", "g", {"q": "a"})]
    (result,) = message_from_dict({"role": "tool", "tool_call_id": "c9", "content": "found"}, tally)
    assert (result.call_id, result.text) == ("c9", "found")


def test_gemini_parts_with_function_calls_responses_and_thoughts() -> None:
    tally = Tally()
    found = message_from_dict({"role": "model", "parts": [
        {"text": "hmm", "thought": True}, {"function_call": {"name": "refund", "args": {"order": "42"}}},
        {"function_response": {"name": "refund", "response": {"result": "ok"}}}]}, tally)
    assert found[0] == Message("assistant", "", "hmm", [RequestedToolCall(None, "refund", {"order": "42"})])
    assert (found[1].role, found[1].name, found[1].text) == ("tool", "refund", '{"result":"ok"}')


def test_media_and_unknown_roles_are_counted_never_dropped_silently() -> None:
    tally = Tally()
    (message,) = message_from_dict({"role": "user", "content": [
        {"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}]}, tally)
    assert message.text == "look\n[image_url omitted]"
    assert message_from_dict({"role": "narrator", "content": "x"}, tally) == []
    assert tally.as_dict() == {"image_url content": 1, "message with role 'narrator'": 1}


def test_a_message_list_as_json_text_or_inside_a_request() -> None:
    tally = Tally()
    assert [m.role for m in messages_from('[{"role": "system", "content": "s"}]', tally) or []] == ["system"]
    assert [m.text for m in messages_from({"messages": [{"role": "user", "content": "u"}]}, tally) or []] == ["u"]
    assert messages_from("not json", tally) is None


def test_arguments_are_always_an_object() -> None:
    assert as_arguments('{"a": 1}') == {"a": 1}
    assert as_arguments("[1, 2]") == {"input": [1, 2]}
    assert as_arguments("plain words") == {"input": "plain words"}
    assert as_arguments(None) == {}


def test_unflatten_indexed_attributes() -> None:
    flat = {"p.1.role": "user", "p.0.role": "system", "p.0.tool_calls.0.name": "f", "other": 1}
    assert unflatten(flat, "p") == [{"role": "system", "tool_calls": [{"name": "f"}]}, {"role": "user"}]
    assert unflatten(flat, "missing") == []
