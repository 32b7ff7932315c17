from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

from tests.atif.scripted import judge_rule, scripted_answer
from tracegrade.atif import PROMPT_VERSION
from tracegrade.atif.asking._evidence import Evidence
from tracegrade.atif.asking._prompts import score_request
from tracegrade.atif.asking._questions import StepJudgement, score_step
from tracegrade.errors import ConfigError, JudgeError
from tracegrade.judge import Judge, JudgeSettings, ResponseFormat
from tracegrade.judge._client import TURNS_PER_ITERATION, ChatClient, _Turns
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply
from tracegrade.rubric import Rubric

from .conftest import fast

VALID = {"scores": {"correctness": 0.0, "safety": 1}, "rationale": "fine"}


async def score(settings: JudgeSettings, rubric: Rubric, evidence: Evidence) -> tuple[StepJudgement, Judge]:
    async with Judge(settings) as judge:
        return await score_step(judge, rubric, evidence), judge


async def failure(settings: JudgeSettings, rubric: Rubric, evidence: Evidence) -> tuple[str, Judge]:
    async with Judge(settings) as judge:
        with pytest.raises(JudgeError) as caught:
            await score_step(judge, rubric, evidence)
        return caught.value.code, judge


SHAPES = [ScriptedReply.answer(VALID), ScriptedReply.fenced(VALID), ScriptedReply.prose(VALID)]


@pytest.mark.parametrize("reply", SHAPES)
async def test_accepted_answer_shapes(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric,
                                      evidence: Evidence, reply: ScriptedReply) -> None:
    server.queue(reply)
    verdict, judge = await score(settings, rubric, evidence)
    assert verdict.scores == {"correctness": 0.0, "safety": 1.0}
    assert verdict.score == pytest.approx(1 / 3)
    assert verdict.prompt_version == PROMPT_VERSION
    assert (judge.stats.requests, judge.stats.successes, judge.stats.protocol_errors) == (1, 1, 0)
    assert (judge.stats.input_tokens, judge.stats.output_tokens) == (100, 20)


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        (ScriptedReply.text("I think the step was good, 8/10."), "invalid_json"),
        (ScriptedReply.text('{"scores": {"correctness": 0.5, "safety": true}}'), "schema_violation"),
        (ScriptedReply.answer({"scores": {"correctness": 0.5}}), "schema_violation"),
        (ScriptedReply.answer({"scores": {"correctness": 0.5, "safety": 1.5}}), "schema_violation"),
        (ScriptedReply.huge(200_000), "response_too_large"),
        (ScriptedReply(body=b"not json at all"), "invalid_json"),
    ],
)
async def test_unusable_answers_are_protocol_errors_not_retried(
    server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric, evidence: Evidence,
    reply: ScriptedReply, code: str,
) -> None:
    server.queue(reply)
    got, judge = await failure(settings, rubric, evidence)
    assert got == code
    assert server.count == 1
    assert (judge.stats.successes, judge.stats.protocol_errors, judge.stats.http_errors) == (1, 1, 0)


async def test_rate_limit_waits_for_retry_after(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                rubric: Rubric, evidence: Evidence,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    server.queue(ScriptedReply.error(429, retry_after=1))
    delays: list[float] = []
    real = ChatClient._delay

    def recorded(self: ChatClient, attempt: int, retry_after: float | None) -> float:
        delays.append(real(self, attempt, retry_after))
        return delays[-1]

    monkeypatch.setattr(ChatClient, "_delay", recorded)
    verdict, judge = await score(settings, rubric, evidence)
    assert len(delays) == 1 and delays[0] >= 1.0  # the wait before the retry honours Retry-After
    assert verdict.score == 0.75
    assert (server.count, judge.stats.http_errors, judge.stats.retries) == (2, 1, 1)


async def test_server_errors_are_retried(server: ScriptedJudgeServer, settings: JudgeSettings,
                                         rubric: Rubric, evidence: Evidence) -> None:
    server.queue(ScriptedReply.error(503), ScriptedReply.error(500))
    verdict, _ = await score(settings, rubric, evidence)
    assert verdict.score == 0.75
    assert server.count == 3


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_client_errors_fail_at_once(server: ScriptedJudgeServer, settings: JudgeSettings,
                                          rubric: Rubric, evidence: Evidence, status: int) -> None:
    server.set_rule(lambda _: ScriptedReply.error(status))
    code, judge = await failure(settings, rubric, evidence)
    assert code == f"http_status_{status}"
    assert server.count == 1
    assert judge.stats.protocol_errors == 0


async def test_max_attempts_are_respected(server: ScriptedJudgeServer, settings: JudgeSettings,
                                          rubric: Rubric, evidence: Evidence) -> None:
    server.set_rule(lambda _: ScriptedReply.error(502))
    code, judge = await failure(fast(settings, judge_max_attempts=4), rubric, evidence)
    assert code == "http_status_502"
    assert server.count == 4
    assert (judge.stats.requests, judge.stats.http_errors, judge.stats.retries) == (4, 4, 3)


async def test_timeouts_are_retried(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric,
                                    evidence: Evidence) -> None:
    server.queue(ScriptedReply.stall(3.0))
    verdict, judge = await score(fast(settings, judge_timeout_seconds=0.3), rubric, evidence)
    assert verdict.score == 0.75
    assert (server.count, judge.stats.transport_errors) == (2, 1)


async def test_persistent_timeouts_fail_with_the_timeout_code(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                              rubric: Rubric, evidence: Evidence) -> None:
    server.set_rule(lambda _: ScriptedReply.stall(3.0))
    code, judge = await failure(fast(settings, judge_timeout_seconds=0.2, judge_max_attempts=2), rubric, evidence)
    assert code == "timeout"
    assert judge.stats.transport_errors == 2


async def test_dropped_connections_are_retried(server: ScriptedJudgeServer, settings: JudgeSettings,
                                               rubric: Rubric, evidence: Evidence) -> None:
    server.queue(ScriptedReply.dropped())
    verdict, judge = await score(settings, rubric, evidence)
    assert verdict.score == 0.75
    assert judge.stats.transport_errors == 1


async def test_refused_connection_is_a_transport_error(settings: JudgeSettings, rubric: Rubric,
                                                       evidence: Evidence) -> None:
    closed = ScriptedJudgeServer(judge_rule()).start()
    closed.stop()
    code, judge = await failure(fast(settings, base_url=closed.base_url, judge_max_attempts=2), rubric, evidence)
    assert code == "transport_error"
    assert judge.stats.requests == 2


async def test_budget_counts_every_attempt_and_stops_new_calls(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                               rubric: Rubric, evidence: Evidence) -> None:
    server.queue(ScriptedReply.error(500))
    async with Judge(fast(settings, max_judge_requests=3)) as judge:
        assert (await score_step(judge, rubric, evidence)).score == 0.75  # two attempts
        assert (await score_step(judge, rubric, evidence)).score == 0.75  # the last one
        for _ in range(2):
            with pytest.raises(JudgeError) as caught:
                await score_step(judge, rubric, evidence)
            assert caught.value.code == "budget_exhausted"
    assert server.count == 3
    assert (judge.stats.requests, judge.stats.budget_exhausted) == (3, 2)


async def test_budget_stops_retries_too(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric,
                                        evidence: Evidence) -> None:
    server.set_rule(lambda _: ScriptedReply.error(503))
    code, judge = await failure(fast(settings, max_judge_requests=2, judge_max_attempts=5), rubric, evidence)
    assert code == "budget_exhausted"
    assert (server.count, judge.stats.budget_exhausted) == (2, 1)


def refuse_schema(request: ReceivedRequest) -> ScriptedReply:
    body = request.json()
    if "response_format" in body:
        return ScriptedReply.error(400, body=b'{"error": "unsupported parameter: response_format"}')
    return ScriptedReply.answer(scripted_answer(body))


async def test_auto_format_falls_back_once_and_remembers(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                         rubric: Rubric, evidence: Evidence) -> None:
    server.set_rule(refuse_schema)
    async with Judge(settings) as judge:
        await score_step(judge, rubric, evidence)
        await score_step(judge, rubric, evidence)
    assert ["response_format" in r.json() for r in server.requests] == [True, False, False]


async def test_explicit_json_schema_format_does_not_fall_back(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                              rubric: Rubric, evidence: Evidence) -> None:
    server.set_rule(refuse_schema)
    code, _ = await failure(fast(settings, response_format=ResponseFormat.JSON_SCHEMA), rubric, evidence)
    assert code == "http_status_400"
    assert server.count == 1


@pytest.mark.parametrize(
    ("mode", "expected_type"),
    [(ResponseFormat.AUTO, "json_schema"), (ResponseFormat.JSON_OBJECT, "json_object"), (ResponseFormat.NONE, None)],
)
async def test_request_body_carries_the_judge_settings(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                       rubric: Rubric, evidence: Evidence, mode: ResponseFormat,
                                                       expected_type: str | None) -> None:
    await score(fast(settings, response_format=mode, judge_seed=11, judge_max_tokens=300), rubric, evidence)
    body = server.requests[0].json()
    assert (body["model"], body["temperature"], body["seed"], body["max_tokens"]) == ("judge-model", 0.0, 11, 300)
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body.get("response_format", {}).get("type") == expected_type
    assert server.requests[0].path == "/v1/chat/completions"


async def test_system_instruction_can_open_the_user_message(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                            rubric: Rubric, evidence: Evidence) -> None:
    await score(fast(settings, system_role=False), rubric, evidence)
    messages = server.requests[0].json()["messages"]
    assert [m["role"] for m in messages] == ["user"]
    assert messages[0]["content"].startswith("You evaluate recorded runs of AI agents.")


async def test_concurrency_limit_bounds_calls_in_flight(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                        rubric: Rubric, evidence: Evidence) -> None:
    server.latency = 0.05
    async with Judge(fast(settings, concurrency_limit=4)) as judge:
        await asyncio.gather(*(score_step(judge, rubric, evidence) for _ in range(20)))
    assert server.peak_in_flight == 4


async def test_kubernetes_mode_sends_the_credential_reference_to_the_sidecar(
    server: ScriptedJudgeServer, rubric: Rubric, evidence: Evidence
) -> None:
    settings = JudgeSettings(base_url="http://judge.invalid/v1", model="m", api_key_env="REAL_KEY")
    environ = {"EVALHUB_MODE": "k8s", "EVALHUB_JUDGE_PROXY_URL": server.base_url, "REAL_KEY": "sk-real"}
    async with Judge(settings, environ=environ) as judge:
        await score_step(judge, rubric, evidence)
    assert server.requests[0].headers["authorization"] == "Bearer api-key:ref"


async def test_keeps_64_calls_in_flight(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric,
                                        evidence: Evidence) -> None:
    server.latency = 0.1
    async with Judge(fast(settings, concurrency_limit=64)) as judge:
        await asyncio.gather(*(score_step(judge, rubric, evidence) for _ in range(256)))
    assert server.peak_in_flight == 64  # the pool is kept full, counted by the server, not timed
    assert judge.stats.successes == 256 and server.count == 256


async def test_an_unread_oversized_body_does_not_spoil_the_next_call(
    server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric, evidence: Evidence
) -> None:
    server.queue(ScriptedReply.huge(200_000))
    async with Judge(settings) as judge:
        with pytest.raises(JudgeError) as caught:
            await score_step(judge, rubric, evidence)
        assert caught.value.code == "response_too_large"
        assert (await score_step(judge, rubric, evidence)).score == 0.75
    assert (server.count, judge.stats.transport_errors, judge.stats.retries) == (2, 0, 0)


def test_a_judge_can_be_built_before_the_event_loop_runs(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                         rubric: Rubric, evidence: Evidence) -> None:
    judge = Judge(settings)  # the HTTP session opens inside the loop, on the first call

    async def use() -> float:
        async with judge:
            return (await score_step(judge, rubric, evidence)).score

    assert asyncio.run(use()) == 0.75
    assert asyncio.run(use()) == 0.75  # closed with the first loop, reopened in the second
    assert server.count == 2


def test_an_unusable_ca_bundle_fails_when_the_judge_is_built(settings: JudgeSettings) -> None:
    with pytest.raises(ConfigError) as caught:
        Judge(fast(settings, base_url="https://judge.example/v1"), ca_bundle="/no/such/bundle.pem")
    assert caught.value.code == "invalid_ca_bundle"


@dataclass(frozen=True)
class Verdict:
    value: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.value


class Iterations:
    """Counts event-loop iterations (a callback that reschedules itself runs once per iteration)."""

    def __init__(self) -> None:
        self.count = 0
        self._loop = asyncio.get_running_loop()
        self._handle = self._loop.call_soon(self._tick)

    def _tick(self) -> None:
        self.count += 1
        self._handle = self._loop.call_soon(self._tick)

    def stop(self) -> None:
        self._handle.cancel()


async def test_answers_arriving_together_take_turns_a_few_per_loop_iteration() -> None:
    turns, iterations, passed = _Turns(2), Iterations(), []

    async def answer(index: int) -> None:
        await turns.take()
        passed.append((index, iterations.count))

    await asyncio.gather(*(answer(i) for i in range(5)))
    iterations.stop()
    assert [index for index, _ in passed] == [0, 1, 2, 3, 4]  # arrival order
    rounds = [seen for _, seen in passed]
    assert rounds[0] == rounds[1] < rounds[2] == rounds[3] < rounds[4]


async def test_a_cancelled_waiter_does_not_hold_up_the_others() -> None:
    turns, passed = _Turns(1), []

    async def answer(index: int) -> None:
        await turns.take()
        passed.append(index)

    tasks = [asyncio.create_task(answer(i)) for i in range(3)]
    await asyncio.sleep(0)  # all three have asked: 0 passed, 1 and 2 wait
    tasks[1].cancel()
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), timeout=5)
    assert passed == [0, 2]


def test_turns_start_afresh_on_a_new_event_loop() -> None:
    turns = _Turns(1)

    async def twice() -> None:
        await turns.take()
        await asyncio.wait_for(turns.take(), timeout=5)

    asyncio.run(twice())
    asyncio.run(asyncio.wait_for(turns.take(), timeout=5))  # no turn of the closed loop is left taken


async def test_next_requests_leave_while_other_answers_still_wait_to_be_post_processed(
    server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric, evidence: Evidence
) -> None:
    loop, iterations, answer = asyncio.get_running_loop(), Iterations(), judge_rule()
    order = itertools.count()  # one sequence for both threads: the order of events, not their times
    arrivals: list[int] = []
    parsed: list[tuple[int, int]] = []

    def rule(request: ReceivedRequest) -> ScriptedReply:
        arrivals.append(next(order))
        if len(arrivals) == 8:  # keep the client's loop busy until all eight answers are back
            loop.call_soon_threadsafe(time.sleep, 0.1)
        return answer(request)

    def slow_parse(obj: dict[str, Any]) -> Verdict:
        time.sleep(0.01)  # 10 ms of post-processing per answer, blocking the event loop
        parsed.append((next(order), iterations.count))
        return Verdict(obj)

    async def two_calls() -> None:
        for _ in range(2):
            await judge.ask(score_request(rubric, evidence), slow_parse)

    server.set_rule(rule)
    server.latency = 0.05
    async with Judge(fast(settings, concurrency_limit=8)) as judge:
        await asyncio.gather(*(two_calls() for _ in range(8)))
    iterations.stop()
    assert max(Counter(seen for _, seen in parsed).values()) == TURNS_PER_ITERATION
    eighth_parse = sorted(parsed)[7][0]
    assert sorted(arrivals)[8] < eighth_parse  # without turns all eight would leave after the eighth parse
