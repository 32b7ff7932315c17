from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from evalhub.models.atif import Step

from tracegrade.atif import PROMPT_VERSION
from tracegrade.atif.asking._evidence import Evidence, build_evidence
from tracegrade.atif.asking._questions import categorize_step, derive_criteria, score_step
from tracegrade.errors import JudgeError
from tracegrade.judge import JudgeRequest
from tracegrade.judge.testing import FakeJudge
from tracegrade.rubric import Criterion, Rubric

RUBRIC = Rubric(criteria=(Criterion(name="a", description="A", weight=3), Criterion(name="b", description="B")))


def evidence(omitted: int = 0) -> Evidence:
    built = build_evidence("t", None, [], Step(step_id=1, source="agent", message="done"), None, 65536)
    return dataclasses.replace(built, omitted_history=omitted)


def answering(answer: dict[str, Any]) -> FakeJudge:
    return FakeJudge(lambda request: answer)


async def test_a_step_score_is_the_rubrics_aggregation_of_the_judges_scores() -> None:
    judge = answering({"scores": {"a": 1.0, "b": 0.0}, "rationale": "mostly right"})
    judgement = await score_step(judge, RUBRIC, evidence(omitted=2))  # type: ignore[arg-type]
    assert judgement.scores == {"a": 1.0, "b": 0.0} and judgement.score == pytest.approx(0.75)
    assert (judgement.rationale, judgement.omitted_history) == ("mostly right", 2)
    (request,) = judge.requests
    assert (request.purpose, judgement.template_hash, judgement.prompt_version) == (
        "score", request.template_hash, PROMPT_VERSION)


async def test_a_seed_is_sent_with_the_request_only_when_given() -> None:
    judge = answering({"scores": {"a": 0.5, "b": 0.5}, "rationale": "r"})
    await score_step(judge, RUBRIC, evidence(), seed=7)  # type: ignore[arg-type]
    await score_step(judge, RUBRIC, evidence())  # type: ignore[arg-type]
    assert [request.seed for request in judge.requests] == [7, None]


async def test_a_coarse_question_asks_for_the_restricted_answer_schema() -> None:
    judge = answering({"scores": {"a": 0.5, "b": 0.25}, "rationale": "r"})
    await score_step(judge, RUBRIC, evidence(), coarse=True)  # type: ignore[arg-type]
    await score_step(judge, RUBRIC, evidence())  # type: ignore[arg-type]
    coarse, fine = (request.response_schema["properties"]["scores"]["properties"]["a"] for request in judge.requests)
    assert "enum" in coarse and "enum" not in fine


async def test_an_answer_without_scores_is_a_protocol_error_never_a_score() -> None:
    with pytest.raises(JudgeError) as caught:
        await score_step(answering({"rationale": "forgot"}), RUBRIC, evidence())  # type: ignore[arg-type]
    assert caught.value.code == "schema_violation"


async def test_derived_criteria_form_a_rubric_named_auto() -> None:
    criteria = [{"name": "correct", "description": "Right answer", "weight": 2},
                {"name": "brief", "description": "No wasted steps", "weight": 1}]
    judge = answering({"criteria": criteria})
    rubric = await derive_criteria(judge, "fix the parser", 65536)  # type: ignore[arg-type]
    assert rubric.name == "auto" and [c.name for c in rubric.criteria] == ["correct", "brief"]
    (request,) = judge.requests
    assert request.purpose == "derive" and "fix the parser" in request.messages[-1]["content"]


async def test_a_low_step_is_categorised_with_its_score_shown_to_the_judge() -> None:
    asked: list[JudgeRequest] = []

    def answer(request: JudgeRequest) -> dict[str, Any]:
        asked.append(request)
        return {"category": "context_loss", "rationale": "forgot the file"}

    category = await categorize_step(FakeJudge(answer), evidence(), 0.2)  # type: ignore[arg-type]
    assert (category.category, category.rationale, category.actionable) == ("context_loss", "forgot the file", True)
    assert asked[0].purpose == "categorize" and "0.200" in asked[0].messages[-1]["content"]
