"""FakeJudge: in-process answers through the caller's real parser, standing in for a Judge."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from tracegrade.errors import JudgeError
from tracegrade.judge import JudgeOptions, JudgeProtocol, JudgeRequest, JudgeSettings, protocol_error
from tracegrade.judge.testing import FakeJudge


@dataclass(frozen=True)
class Verdict:
    verdict: str

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict}


def parse(answer: dict[str, Any]) -> Verdict:
    if set(answer) != {"verdict"} or answer["verdict"] not in ("pass", "fail"):
        raise protocol_error("schema_violation", "the answer must be {verdict: pass|fail}")
    return Verdict(answer["verdict"])


def request(text: str) -> JudgeRequest:
    return JudgeRequest(purpose="check", messages=({"role": "user", "content": text},),
                        response_schema={"type": "object"}, template_hash="t")


def by_text(req: JudgeRequest) -> dict[str, Any] | Exception:
    text = req.messages[-1]["content"]
    if text == "down":
        return JudgeError("scripted outage", code="transport_error")
    return {"verdict": text}


async def test_answers_go_through_the_callers_parser_and_every_request_is_recorded() -> None:
    judge = FakeJudge(by_text)
    assert await judge.ask(request("pass"), parse) == Verdict("pass")
    with pytest.raises(JudgeError) as invalid:
        await judge.ask(request("maybe"), parse)
    with pytest.raises(JudgeError) as outage:
        await judge.ask(request("down"), parse)
    assert (invalid.value.code, outage.value.code) == ("schema_violation", "transport_error")
    assert [r.messages[-1]["content"] for r in judge.requests] == ["pass", "maybe", "down"]
    stats = judge.stats
    assert (stats.requests, stats.successes, stats.protocol_errors) == (3, 2, 1)


def test_it_reports_the_settings_and_provenance_a_real_judge_would() -> None:
    assert FakeJudge(by_text).provenance() == JudgeSettings("http://fake.invalid/v1", "fake").provenance()
    settings = JudgeSettings("http://h/v1", "judge-x", options=JudgeOptions(judge_seed=3))
    judge = FakeJudge(by_text, settings=settings)
    assert judge.settings is settings
    assert judge.provenance() == settings.provenance() and judge.provenance()["seed"] == 3
    assert judge.provenance() is not judge.provenance()  # a copy each time, as Judge gives


def test_it_satisfies_the_judge_protocol() -> None:
    def model_of(judge: JudgeProtocol) -> str:  # type-checked: a FakeJudge is accepted where a judge is asked
        return judge.settings.model

    assert model_of(FakeJudge(by_text)) == "fake"


async def test_a_delay_lets_answers_arrive_out_of_order_and_counts_what_is_in_flight() -> None:
    delays = {"fail": 0.02, "pass": 0.0}
    judge = FakeJudge(by_text, delay=lambda req: delays[req.messages[-1]["content"]])
    finished: list[str] = []

    async def ask(text: str) -> None:
        finished.append((await judge.ask(request(text), parse)).verdict)

    await asyncio.gather(ask("fail"), ask("pass"))
    assert finished == ["pass", "fail"]
    assert (judge.peak_in_flight, judge.in_flight) == (2, 0)
