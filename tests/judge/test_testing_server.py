from __future__ import annotations

import httpx

from tests.atif.scripted import scripted_answer
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply


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
    prompt = '<criteria>\n[{"name": "a"}, {"name": "b"}]\n</criteria>'
    assert scripted_answer({"messages": [{"role": "user", "content": prompt}]}, score=0.5)["scores"] == {
        "a": 0.5, "b": 0.5}
    assert scripted_answer({"messages": [{"role": "user", "content": prompt + " Answer question B"}]})["category"]
    assert scripted_answer({"messages": [{"role": "user", "content": "<task>"}]})["criteria"]


def test_a_failing_rule_answers_500() -> None:
    def broken(_: object) -> ScriptedReply:
        raise KeyError("oops")

    with ScriptedJudgeServer(broken) as server, httpx.Client() as client:  # type: ignore[arg-type]
        assert client.post(f"{server.base_url}/v1/chat/completions", json={}).status_code == 500
