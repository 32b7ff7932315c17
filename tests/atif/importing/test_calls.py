from __future__ import annotations

from typing import Any

from tests.atif.importing.otlp import messages, tool_call
from tracegrade.atif.importing._calls import InputMemo, agent_info, count_unread, read_model_call
from tracegrade.atif.importing._messages import Message
from tracegrade.atif.importing._spans import Span, SpanEvent, Tally


def make(span_id: str, attributes: dict[str, Any], name: str = "", events: list[SpanEvent] | None = None) -> Span:
    return Span("a" * 32, span_id, None, name, 1, 2, attributes, None, events or [])


def test_nested_spans_of_one_call_are_read_once_with_content_from_the_span_that_holds_it() -> None:
    wrapper = make("1" * 16, {"gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 30,
                              "gen_ai.usage.output_tokens": 4}, "call_llm")
    inner = make("2" * 16, {"gen_ai.operation.name": "chat", "gen_ai.response.model": "m-2024",
                            "gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 4,
                            "gen_ai.input.messages": messages(("user", "hi")),
                            "gen_ai.output.messages": messages(("assistant", "hello")),
                            "gen_ai.response.id": "r-1"})
    call = read_model_call([wrapper, inner], Tally())
    assert call.inputs == [Message("user", "hi")] and call.outputs == [Message("assistant", "hello")]
    assert call.usage is not None and (call.usage.prompt, call.usage.completion) == (30, 4)
    assert (call.model, call.response_id) == ("m-2024", "r-1")


def test_message_attributes_win_over_events_and_events_fill_what_is_missing() -> None:
    events = [SpanEvent("gen_ai.user.message", 1, {"content": "from event"}),
              SpanEvent("gen_ai.choice", 2, {"message": '{"content": "event answer"}'})]
    both = make("1" * 16, {"gen_ai.operation.name": "chat", "gen_ai.input.messages": messages(("user", "attr"))},
                events=events)
    call = read_model_call([both], Tally())
    assert [m.text for m in call.inputs] == ["attr"] and [m.text for m in call.outputs] == ["event answer"]


def test_the_memo_reads_only_what_a_call_adds_to_the_conversation() -> None:
    memo = InputMemo()
    first = messages(("user", "task"))
    answer = tool_call("c1", "f", {})
    assert memo.tail(first) == first
    memo.output = answer
    second = first[:-1] + "," + answer[1:-1] + ',{"role":"tool","parts":[]}]'
    assert memo.tail(second) == '[{"role":"tool","parts":[]}]'
    assert memo.tail('[{"role":"user"}]') == '[{"role":"user"}]'  # not an extension: read in full
    memo.answered.add("c1")
    assert memo.mapped({"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1"}]})
    assert not memo.mapped({"role": "tool", "tool_call_id": "c2"})


def test_calls_of_one_trajectory_skip_the_history_they_share() -> None:
    memo, tally = InputMemo(), Tally()
    first = make("1" * 16, {"gen_ai.operation.name": "chat", "gen_ai.system_instructions": "Be brief.",
                            "gen_ai.input.messages": messages(("user", "task")),
                            "gen_ai.output.messages": messages(("assistant", "one"))})
    second = make("2" * 16, {"gen_ai.operation.name": "chat", "gen_ai.system_instructions": "Be brief.",
                             "gen_ai.input.messages": messages(("user", "task"), ("assistant", "one"),
                                                               ("user", "more")),
                             "gen_ai.output.messages": messages(("assistant", "two"))})
    assert [m.text for m in read_model_call([first], tally, memo).inputs] == ["Be brief.", "task"]
    assert [m.text for m in read_model_call([second], tally, memo).inputs] == ["more"]


def test_agent_spans_give_name_description_task_and_answer() -> None:
    span = make("1" * 16, {"openinference.span.kind": "AGENT", "agent.name": "planner", "input.value": "plan it",
                           "output.value": "planned"}, "Planner")
    info = agent_info(span, Tally())
    assert (info.name, info.version, info.task, info.output) == ("planner", "unknown", "plan it", "planned")
    assert agent_info(make("2" * 16, {}, "invoke_agent helper"), Tally()).name == "helper"


def test_attributes_no_part_of_the_mapping_reads_are_counted() -> None:
    tally = Tally()
    count_unread(make("1" * 16, {"gen_ai.request.temperature": 0.2, "gen_ai.usage.input_tokens": 3,
                                 "gen_ai.prompt.0.role": "user", "my.custom": 1}), tally)
    assert tally.as_dict() == {"attribute gen_ai.request.temperature": 1, "attribute my.custom": 1}


def test_cached_and_reasoning_tokens_of_the_client_span_reach_the_call_beside_the_wrappers_counts() -> None:
    """Shaped like a kagent/LiteLLM trace: the wrapper records input and output, the client span the rest."""
    wrapper = make("1" * 16, {"gen_ai.usage.input_tokens": 2138, "gen_ai.usage.output_tokens": 771}, "call_llm")
    client = make("2" * 16, {"gen_ai.operation.name": "chat", "gen_ai.usage.prompt_tokens": 2138,
                             "gen_ai.usage.completion_tokens": 771, "gen_ai.usage.cache_read_input_tokens": 1792,
                             "gen_ai.usage.reasoning_tokens": 256, "llm.usage.total_tokens": 2909})
    call = read_model_call([wrapper, client], Tally())
    assert call.usage is not None
    assert (call.usage.prompt, call.usage.completion, call.usage.cached, call.usage.reasoning) == (2138, 771, 1792, 256)


def test_a_token_count_of_0_is_kept_and_not_replaced_by_a_later_key_or_span() -> None:
    outer = make("1" * 16, {"gen_ai.usage.input_tokens": 0, "gen_ai.usage.prompt_tokens": 7,
                            "gen_ai.usage.cache_read_input_tokens": 0}, "call_llm")
    inner = make("2" * 16, {"gen_ai.usage.input_tokens": 9, "gen_ai.usage.output_tokens": 0,
                            "gen_ai.usage.cache_read_input_tokens": 5, "gen_ai.usage.reasoning_tokens": 0})
    usage = read_model_call([outer, inner], Tally()).usage
    assert usage is not None and (usage.prompt, usage.completion, usage.cached, usage.reasoning) == (0, 0, 0, 0)


def test_a_span_with_only_cached_tokens_still_has_usage() -> None:
    usage = read_model_call([make("1" * 16, {"llm.token_count.prompt_details.cache_read": 4})], Tally()).usage
    assert usage is not None and (usage.prompt, usage.cached) == (None, 4)


def test_token_counts_without_an_atif_field_are_named() -> None:
    tally = Tally()
    count_unread(make("1" * 16, {"gen_ai.usage.input_tokens": 3, "gen_ai.usage.cache_read_input_tokens": 1,
                                 "gen_ai.usage.reasoning_tokens": 1, "gen_ai.usage.total_tokens": 5,
                                 "llm.token_count.total": 5, "gen_ai.usage.cache_creation_input_tokens": 2}), tally)
    assert tally.as_dict() == {"token count with no ATIF field: gen_ai.usage.total_tokens": 1,
                               "token count with no ATIF field: llm.token_count.total": 1,
                               "token count with no ATIF field: gen_ai.usage.cache_creation_input_tokens": 1}
