from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracegrade._io import _json
from tracegrade.errors import JudgeError
from tracegrade.judge import _extract, extract_json_object
from tracegrade.judge._extract import extract_verdict, json_objects, parse_chat_body

ANSWER = {"scores": {"a": 0.5}, "rationale": "a {brace} and a \"quote\" }"}


def test_bare_object() -> None:
    assert extract_json_object(json.dumps(ANSWER)) == ANSWER


def test_fenced_block() -> None:
    text = f"Sure!\n```json\n{json.dumps(ANSWER, indent=2)}\n```\nAnything else?"
    assert extract_json_object(text) == ANSWER


def test_prose_with_stray_braces_before_the_object() -> None:
    text = f"I considered {{the step}} and {{ not json }} then: {json.dumps(ANSWER)} -- {{bye}}"
    assert extract_json_object(text) == ANSWER


def test_two_different_objects_are_ambiguous() -> None:
    with pytest.raises(JudgeError) as caught:
        extract_json_object('x {"first": 1} y {"second": 2}')
    assert caught.value.code == "ambiguous_answer"


def test_an_identical_repeat_is_not_ambiguous() -> None:
    assert extract_json_object('draft {"a": 1} final {"a": 1}') == {"a": 1}


@pytest.mark.parametrize("text", ['{"a": 1, "a": 2}', 'verdict: {"s": {"x": 0.1, "x": 0.9}}',
                                  '{"a":1,"b":{"c":1,"c":1}}'])
def test_duplicate_keys_are_a_protocol_error(text: str) -> None:
    with pytest.raises(JudgeError) as caught:
        extract_json_object(text)
    assert caught.value.code == "duplicate_key"


def scores_only(obj: dict[str, Any]) -> float:
    if set(obj) != {"score"} or not isinstance(obj["score"], float):
        raise JudgeError("bad", code="schema_violation")
    return obj["score"]


def test_the_verdict_is_the_object_that_validates_not_the_first() -> None:
    text = 'The step said {"step_id": 3, "message": "{\\"score\\": 1.0}"} so my verdict is {"score": 0.2}'
    assert extract_verdict(text, scores_only) == 0.2


def test_a_quoted_verdict_shaped_object_before_the_answer_is_ambiguous() -> None:
    text = 'The tool printed {"score": 1.0}. My verdict: {"score": 0.2}'
    with pytest.raises(JudgeError) as caught:
        extract_verdict(text, scores_only)
    assert caught.value.code == "ambiguous_answer"


def test_without_a_valid_candidate_the_last_candidates_error_is_raised() -> None:
    def validate(obj: dict[str, Any]) -> float:
        raise JudgeError("x", code="schema_violation" if "last" in obj else "invalid_json")

    with pytest.raises(JudgeError) as caught:
        extract_verdict('{"first": 1} {"last": 1}', validate)
    assert caught.value.code == "schema_violation"


def test_nested_objects_are_not_candidates_of_their_own() -> None:
    assert json_objects('a {"outer": {"score": 1.0}} b {"score": 0.5}') == [{"outer": {"score": 1.0}}, {"score": 0.5}]
    assert extract_verdict('{"outer": {"score": 1.0}} {"score": 0.5}', scores_only) == 0.5


def test_a_non_protocol_error_from_the_validator_propagates() -> None:
    def validate(obj: dict[str, Any]) -> float:
        raise JudgeError("x", code="budget_exhausted")

    with pytest.raises(JudgeError) as caught:
        extract_verdict('{"a": 1}', validate)
    assert caught.value.code == "budget_exhausted"


def test_braces_inside_strings_do_not_confuse_extraction() -> None:
    obj = {"rationale": "}}}{{{", "scores": {"}": 1}}
    assert extract_json_object(f"note: {json.dumps(obj)}") == obj


@pytest.mark.parametrize("text", ["", "no json here", "{not: json}", "[1, 2, 3]", "{\"a\": 1", "```json\n```"])
def test_text_without_an_object_is_invalid_json(text: str) -> None:
    with pytest.raises(JudgeError) as caught:
        extract_json_object(text)
    assert caught.value.code == "invalid_json"


def test_hostile_nesting_is_refused_with_a_code() -> None:
    # how long it takes is measured in benchmarks/bench_wall_clock.py, never asserted here
    for text in ('{"a":' * 13000, "{" * 65536):
        with pytest.raises(JudgeError) as caught:
            extract_json_object(text)
        assert caught.value.code == "invalid_json"


def test_chat_body_content_and_usage() -> None:
    body = json.dumps({"choices": [{"message": {"content": "hi"}}],
                       "usage": {"prompt_tokens": 12, "completion_tokens": True}}).encode()
    reply = parse_chat_body(body)
    assert (reply.content, reply.input_tokens, reply.output_tokens) == ("hi", 12, 0)


@pytest.mark.parametrize(
    ("body", "code"),
    [(b"<html>", "invalid_json"), (b"\xff\xfe", "invalid_json"), (b"{}", "schema_violation"),
     (b'{"choices": []}', "schema_violation"), (b'{"choices": [{"message": {"content": null}}]}', "schema_violation")],
)
def test_unusable_chat_bodies(body: bytes, code: str) -> None:
    with pytest.raises(JudgeError) as caught:
        parse_chat_body(body)
    assert caught.value.code == code


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
objects = st.dictionaries(st.text(max_size=10), json_values, min_size=1, max_size=5)
prose = st.text(alphabet=st.characters(blacklist_characters="{"), max_size=80)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=400))
def test_arbitrary_text_never_crashes(text: str) -> None:
    try:
        result = extract_json_object(text)
    except JudgeError as error:
        assert error.code in {"invalid_json", "ambiguous_answer", "duplicate_key"}
    else:
        assert isinstance(result, dict)


@settings(max_examples=300, deadline=None)
@given(obj=objects, before=prose, after=prose, fenced=st.booleans(), indent=st.booleans())
def test_embedded_objects_are_always_found(obj: dict[str, Any], before: str, after: str, fenced: bool,
                                           indent: bool) -> None:
    encoded = json.dumps(obj, indent=2 if indent else None)
    text = f"{before}\n```json\n{encoded}\n```\n{after}" if fenced else f"{before}{encoded}{after}"
    assert extract_json_object(text) == obj


def _found(text: str, *, search_only: bool = False) -> list[dict[str, Any]] | str:
    """The objects in ``text`` (with ``search_only``, as the search alone finds them), or the error's code."""
    try:
        return _json._search(text, _extract.MAX_CANDIDATES) if search_only else json_objects(text)
    except JudgeError as error:
        return error.code
    except _json.JsonProblem as problem:
        return problem.code


@settings(max_examples=400, deadline=None)
@given(obj=objects, indent=st.sampled_from([None, 0, 2]), space=st.sampled_from(["", " ", "\n", "\t "]),
       repeat=st.booleans(), ascii_only=st.booleans(), data=st.data())
def test_a_whole_object_message_is_read_as_the_search_reads_it(
    obj: dict[str, Any], indent: int | None, space: str, repeat: bool, ascii_only: bool, data: st.DataObject,
) -> None:
    text = json.dumps(obj, indent=indent, ensure_ascii=ascii_only)
    if repeat:  # the first key written once more, at the end: a duplicate the quote count must catch
        key = json.dumps(next(iter(obj)), ensure_ascii=ascii_only)
        value = json.dumps(data.draw(json_values, label="repeated value"), ensure_ascii=ascii_only)
        text = f"{text[:-1].rstrip()}, {key}: {value}}}"
    text = f"{space}{text}{space}"
    assert _found(text) == _found(text, search_only=True)


@pytest.mark.parametrize("text", [
    '{"a": "\\u0022", "a": 1}', '{"a": "\\u0022x"}', '{"a": "\\\\u0022"}', '{"a": NaN}', '{"a": 1e400}',
    '{"a": 123456789012345678901234567890}', '{"a": 18446744073709551615}', '{"a": 0.12345678901234567890}',
    '{"a": "\\ud800"}', '{"a": "\ud800"}', '{"a": 1} {"a": 1}', '[{"a": 1}]',
    '{"a": "\\"", "b": "\\"\\""}', '{"a": {"b": 1, "b": 1}}', '  {"a": 1}\n', '{"a": 1',
])
def test_messages_at_the_edges_of_the_whole_object_reading(text: str) -> None:
    assert _found(text) == _found(text, search_only=True)
