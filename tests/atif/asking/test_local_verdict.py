from __future__ import annotations

import asyncio
import math
from typing import Any

import orjson
import pytest
from evalhub.models.atif import Observation, ObservationResult, Step, ToolCall

from tests.atif.delayed import local_answer
from tracegrade.atif.asking._evidence import build_evidence
from tracegrade.atif.asking._local_verdict import (
    PART_CHARS,
    PROBLEMS,
    label_probabilities,
    local_verdict_request,
    parse_local_verdict,
    render_step,
    score_step_locally,
)
from tracegrade.errors import JudgeError
from tracegrade.judge.testing import FakeJudge


def tokens(*alternatives: tuple[str, float], lead: str = '{"problem": "', label: str = "none") -> list[dict[str, Any]]:
    """Answer tokens: ``lead``, then the label token with ``alternatives`` (token, probability), then the end."""
    top = [{"token": t, "logprob": math.log(p)} for t, p in alternatives]
    return [{"token": lead, "logprob": 0.0, "top_logprobs": []},
            {"token": label, "logprob": -0.2, "top_logprobs": top},
            {"token": '"}', "logprob": 0.0, "top_logprobs": []}]


def verdict(label: str, answer_tokens: list[dict[str, Any]]) -> dict[str, Any]:
    return {"answer": {"problem": label}, "logprobs": answer_tokens}


def test_the_score_is_the_share_of_none_among_the_labels_first_tokens() -> None:
    # none 0.3; made 0.1 + deleted 0.05 + "Leaked" 0.05 (case-insensitive); "failed" starts no label
    alternatives = (("none", 0.3), ("made", 0.1), ("failed", 0.2), ("deleted", 0.05), ("Leaked", 0.05))
    reply = parse_local_verdict(verdict("none", tokens(*alternatives)))
    assert reply.score == pytest.approx(0.3 / 0.5)
    assert reply.problem == "none"


def test_a_label_token_that_carries_the_opening_quote_is_read_after_it() -> None:
    answer = [{"token": '{"problem": ', "logprob": 0.0, "top_logprobs": []},
              {"token": '"none', "logprob": -0.1,
               "top_logprobs": [{"token": '"none', "logprob": math.log(0.2)},
                                {"token": '"claimed', "logprob": math.log(0.6)},
                                {"token": "none", "logprob": math.log(0.2)}]},  # no quote: not at this position
              {"token": '"}', "logprob": 0.0, "top_logprobs": []}]
    assert parse_local_verdict(verdict("none", answer)).score == pytest.approx(0.25)


@pytest.mark.parametrize(
    "answer",
    [
        verdict("fine", tokens(("none", 0.5))),  # not a label
        {"answer": {"problem": "none", "score": 1}, "logprobs": tokens(("none", 0.5))},  # extra key
        verdict("none", []),  # no probabilities
        {"answer": {"problem": "none"}, "logprobs": None},
        verdict("none", tokens(("failed", 0.9))),  # no alternative starts a label
        verdict("none", [{"token": '{"verdict": "none"}', "logprob": 0.0, "top_logprobs": []}]),  # no label position
    ],
)
def test_an_answer_without_usable_probabilities_is_a_protocol_error(answer: dict[str, Any]) -> None:
    with pytest.raises(JudgeError) as caught:
        parse_local_verdict(answer)
    assert caught.value.code == "schema_violation"


def test_the_cached_form_parses_back_to_the_same_verdict() -> None:
    reply = parse_local_verdict(verdict("made up facts", tokens(("none", 0.2), ("made", 0.6), label="made")))
    again = parse_local_verdict(orjson.loads(orjson.dumps(reply.to_json())))
    assert again == reply and again.score == pytest.approx(0.25)


def test_every_label_starts_with_its_own_letter() -> None:
    assert len({label[0] for label in PROBLEMS}) == len(PROBLEMS)
    assert label_probabilities(tokens(("n", 0.5), ("i", 0.25)))["ignored the task"] == pytest.approx(0.25)


def step(message: str, output: str = "ok") -> Step:
    return Step(step_id=2, source="agent", message=message,
                tool_calls=[ToolCall(tool_call_id="c", function_name="bash", arguments={"cmd": "ls"})],
                observation=Observation(results=[ObservationResult(source_call_id="c", content=output)]))


def test_the_request_shows_the_task_and_step_as_plain_text_and_asks_for_probabilities() -> None:
    request = local_verdict_request("List the files.", step("Listing.", "a.txt"), 16384)
    (message,) = request.messages
    assert message["role"] == "user"
    assert message["content"].endswith(
        'Task: List the files.\nStep:\nMessage: Listing.\nTool call: bash {"cmd":"ls"}\nTool output: a.txt\nProblem:\n'
    )
    assert request.top_logprobs == 20 and b'"top_logprobs":20' in request.canonical
    assert request.response_schema["properties"]["problem"]["enum"] == list(PROBLEMS)


def test_long_parts_of_a_step_are_cut() -> None:
    shown = render_step(step("m" * 5000, "o" * 5000))
    assert f"Message: {'m' * PART_CHARS} [...]\n" in shown and shown.endswith(f"{'o' * PART_CHARS} [...]")


def test_a_request_over_the_budget_is_a_context_overflow() -> None:
    with pytest.raises(JudgeError) as caught:
        local_verdict_request("task", step("hi"), 2048)
    assert caught.value.code == "context_overflow"


def test_scoring_a_step_locally_records_the_probability_and_how_it_was_made() -> None:
    judge = FakeJudge(lambda request: local_answer(0.4))
    current = step("Listing.")
    evidence = build_evidence("List the files.", None, [], current, None, 16384)
    judgement = asyncio.run(score_step_locally(judge, "List the files.", current, evidence,  # type: ignore[arg-type]
                                               criterion="step_quality"))
    assert judgement.scores == {"step_quality": pytest.approx(0.4)} and judgement.score == pytest.approx(0.4)
    assert "token probabilities" in judgement.rationale and "made up facts" in judgement.rationale
    assert judgement.prompt_version == "local-verdict-v1"
