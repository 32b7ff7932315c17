from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tracegrade.atif.importing._messages import Message, RequestedToolCall
from tracegrade.atif.importing._openinference import io_messages, messages, tool_definitions
from tracegrade.atif.importing._spans import Tally

CONVERSATION = [
    Message("user", "Weather in Paris?"),
    Message("assistant", "Absolutely! Let me check the weather for you.",
            tool_calls=[RequestedToolCall("1234", "get_weather", {"location": "Paris"})]),
    Message("tool", "rainy, 57°F", call_id="1234"),
]


def fixture(corpus: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = orjson.loads((corpus / "traces" / "openinference" / "openinference" / name).read_bytes())
    return loaded


def test_flattened_input_and_output_messages_of_a_real_span(shared_corpus: Path) -> None:
    attributes = fixture(shared_corpus, "openinference_client_span_tool_calls.json")
    tally = Tally()
    assert messages(attributes, "llm.input_messages", tally) == CONVERSATION
    (answer,) = messages(attributes, "llm.output_messages", tally) or []
    assert answer.role == "assistant" and answer.text.startswith("The weather in Paris is currently rainy")
    assert tally.as_dict() == {}


def test_input_and_output_values_when_no_messages_were_flattened(shared_corpus: Path) -> None:
    attributes = fixture(shared_corpus, "openinference_client_span_input_output_only.json")
    tally = Tally()
    assert messages(attributes, "llm.input_messages", tally) is None
    assert io_messages(attributes, "input", tally) == CONVERSATION
    (answer,) = io_messages(attributes, "output", tally) or []
    assert answer.text.startswith("The weather in Paris is currently rainy")


def test_output_values_in_other_shapes() -> None:
    tally = Tally()
    choice = {"output.value": '{"choices": [{"message": {"role": "assistant", "content": "hi"}}]}',
              "output.mime_type": "application/json"}
    assert io_messages(choice, "output", tally) == [Message("assistant", "hi")]
    assert io_messages({"output.value": "plain"}, "output", tally) == [Message("assistant", "plain")]
    assert io_messages({"input.value": "ask"}, "input", tally) == [Message("user", "ask")]


def test_tool_schemas_become_function_definitions() -> None:
    schema = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    assert tool_definitions({"llm.tools.0.tool.json_schema": orjson.dumps(schema).decode()}) == [schema]
    assert tool_definitions({}) == []
