"""The judge: cache keys per request seed, provenance, and what a front door may rely on."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.conftest import tuned
from tracegrade.atif.asking._evidence import Evidence
from tracegrade.atif.asking._prompts import score_request
from tracegrade.atif.asking._replies import score_parser
from tracegrade.judge import Judge, JudgeCache, JudgeOptions, JudgeProtocol, JudgeSettings, cache_key
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.rubric import Rubric


async def test_a_request_seed_is_sent_and_cached_separately(
    server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric, evidence: Evidence, tmp_path: Path
) -> None:
    request = score_request(rubric, evidence)
    seeded = replace(request, seed=11)
    cache = JudgeCache(tmp_path / "c.sqlite3")
    async with Judge(tuned(settings, judge_seed=5), cache=cache) as judge:
        await judge.ask(request, score_parser(rubric))
        await judge.ask(seeded, score_parser(rubric))
        await judge.ask(seeded, score_parser(rubric))
    assert server.count == 2  # the third was answered from the cache
    assert [r.json().get("seed") for r in server.requests] == [5, 11]


def test_without_a_request_seed_the_key_and_bytes_are_unchanged(
    settings: JudgeSettings, rubric: Rubric, evidence: Evidence
) -> None:
    request = score_request(rubric, evidence)
    seeded = replace(request, seed=3)
    assert seeded.canonical == request.canonical
    provenance = settings.provenance()
    assert cache_key(provenance, request) == cache_key(settings.provenance(), replace(request, seed=None))
    reseeded = tuned(settings, judge_seed=3).provenance()
    assert cache_key({**provenance, "seed": 3}, seeded) == cache_key(reseeded, request)


def test_provenance_is_what_shapes_an_answer_with_the_endpoint_without_credentials_or_key() -> None:
    options = JudgeOptions(judge_temperature=0.3, judge_max_tokens=64, concurrency_limit=2)
    keyed = JudgeSettings(base_url="http://judge.example/v1", model="m", api_key_env="JUDGE_KEY", options=options)
    with_credentials = JudgeSettings(base_url="http://user:pw@judge.example/v1", model="m", options=options)
    judge = Judge(keyed, environ={"JUDGE_KEY": "sk-abc"})
    expected = {"model": "m", "endpoint": "http://judge.example:80/v1/chat/completions", "temperature": 0.3,
                "max_tokens": 64, "seed": None, "response_format": "auto", "system_role": True}
    assert judge.provenance() == Judge(with_credentials).provenance() == expected
    judge.provenance()["model"] = "changed"  # a copy: the judge's own record cannot be edited
    assert judge.provenance()["model"] == "m"


async def test_a_judge_is_what_a_front_door_asks(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                 rubric: Rubric, evidence: Evidence) -> None:
    async def scored(judge: JudgeProtocol) -> tuple[str, int]:
        await judge.ask(score_request(rubric, evidence), score_parser(rubric))
        return judge.settings.model, judge.stats.requests

    async with Judge(settings) as judge:
        assert await scored(judge) == ("judge-model", 1)


async def test_the_same_question_asked_twice_at_once_is_paid_once(
    settings: JudgeSettings, rubric: Rubric, evidence: Evidence, tmp_path: Path
) -> None:
    import asyncio

    from tracegrade.judge.testing import ScriptedReply

    answer = {"scores": {"correctness": 0.5, "safety": 1.0}, "rationale": "ok"}
    with ScriptedJudgeServer(lambda request: ScriptedReply.answer(answer, delay=0.2)) as slow:
        async with Judge(replace(settings, base_url=slow.base_url), cache=JudgeCache(tmp_path / "c.sqlite3")) as judge:
            request = score_request(rubric, evidence)
            first, second = await asyncio.gather(*(judge.ask(request, score_parser(rubric)) for _ in range(2)))
        assert first.scores == second.scores and slow.count == 1
        assert (judge.stats.cache_misses, judge.stats.cache_hits) == (1, 1)
        slow.queue(ScriptedReply.error(400))  # the call the other waits for fails: the other asks for itself
        async with Judge(replace(settings, base_url=slow.base_url), cache=JudgeCache(tmp_path / "d.sqlite3")) as judge:
            answers = await asyncio.gather(*(judge.ask(request, score_parser(rubric)) for _ in range(2)),
                                           return_exceptions=True)
        assert [type(a).__name__ for a in answers] == ["JudgeError", "ScoreReply"] and slow.count == 3
