from __future__ import annotations

import httpx
from evalhub.models.atif import Step

from tests.atif.scripted import scripted_answer
from tracegrade.atif.asking._evidence import build_evidence
from tracegrade.atif.asking._prompts import categorize_request, derive_request, score_request
from tracegrade.judge import JudgeRequest
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply
from tracegrade.rubric import Criterion, Rubric


def test_models_endpoint_and_queued_replies_before_the_rule() -> None:
    with ScriptedJudgeServer(lambda _: ScriptedReply.text("rule")) as server, httpx.Client() as client:
        assert client.get(f"{server.base_url}/v1/models").json()["data"][0]["id"] == "scripted-judge"
        server.queue(ScriptedReply.text("first"), ScriptedReply.error(503, retry_after=2))
        url = f"{server.base_url}/v1/chat/completions"
        first = client.post(url, json={"messages": []})
        second = client.post(url, json={"messages": []})
        third = client.post(url, json={"messages": []}, headers={"x-probe": "1"})
    assert first.json()["choices"][0]["message"]["content"] == "first"
    assert (second.status_code, second.headers["retry-after"]) == (503, "2")
    assert third.json()["choices"][0]["message"]["content"] == "rule"
    assert server.count == 3
    assert server.requests[2].headers["x-probe"] == "1"
    assert server.requests[2].json() == {"messages": []}


def test_scripted_answers_follow_the_request_kind() -> None:
    step = Step(step_id=1, source="agent", message="SCORE:0.5 done")
    evidence = build_evidence("fix it", None, [], step, None, 100_000)
    rubric = Rubric(criteria=(Criterion(name="a", description="a", weight=1),
                              Criterion(name="b", description="b", weight=1)))

    def body(request: JudgeRequest) -> dict[str, object]:
        return {"messages": list(request.messages)}

    assert scripted_answer(body(score_request(rubric, evidence)), score=0.5)["scores"] == {"a": 0.5, "b": 0.5}
    assert scripted_answer(body(categorize_request(evidence, 0.1)))["category"] == "reasoning_failure"
    assert scripted_answer(body(derive_request("fix it", 100_000)))["criteria"]


def test_a_failing_rule_answers_500() -> None:
    def broken(_: object) -> ScriptedReply:
        raise KeyError("oops")

    with ScriptedJudgeServer(broken) as server, httpx.Client() as client:  # type: ignore[arg-type]
        assert client.post(f"{server.base_url}/v1/chat/completions", json={}).status_code == 500
