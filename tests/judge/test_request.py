from __future__ import annotations

import orjson

from tracegrade.judge import JudgeRequest, context_overflow, dumps

SCHEMA = {"type": "object", "properties": {"score": {"type": "number"}}}


def request(**changes: object) -> JudgeRequest:
    fields: dict[str, object] = {"purpose": "score", "messages": ({"role": "user", "content": "é?"},),
                                 "response_schema": SCHEMA, "template_hash": "t"}
    fields.update(changes)
    return JudgeRequest(**fields)  # type: ignore[arg-type]


def test_dumps_is_deterministic_whatever_the_key_order() -> None:
    assert dumps({"b": 1, "a": [2, {"d": 3, "c": 4}]}) == b'{"a":[2,{"c":4,"d":3}],"b":1}'


def test_the_canonical_bytes_hold_the_messages_and_the_schema_only() -> None:
    canonical = orjson.loads(request().canonical)
    assert canonical == {"messages": [{"role": "user", "content": "é?"}], "response_schema": SCHEMA}
    assert request(purpose="check", template_hash="other", prompt_version="v9").canonical == request().canonical


def test_asking_for_log_probabilities_changes_the_canonical_bytes() -> None:
    with_logprobs = request(top_logprobs=5)
    assert with_logprobs.canonical != request().canonical
    assert orjson.loads(with_logprobs.canonical)["top_logprobs"] == 5


def test_a_context_overflow_is_a_judge_error_with_its_code_and_the_sizes() -> None:
    error = context_overflow("the evidence", 5000, 4096)
    assert error.code == "context_overflow"
    assert "5000" in str(error) and "4096" in str(error) and "max_context_bytes" in str(error)
