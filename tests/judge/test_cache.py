from __future__ import annotations

import dataclasses

import multiprocessing
import sqlite3
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from tracegrade.atif import Evidence, score_request, score_step
from tracegrade.judge import Judge, JudgeCache, JudgeSettings, cache_key, default_cache_path
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply
from tracegrade.rubric import Criterion, Rubric


async def run(settings: JudgeSettings, cache: JudgeCache, rubric: Rubric, evidence: Evidence) -> Judge:
    async with Judge(settings, cache=cache) as judge:
        await score_step(judge, rubric, evidence)
    return judge


async def test_a_rerun_with_unchanged_inputs_makes_no_http_call(
    server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric, evidence: Evidence, tmp_path: Path
) -> None:
    path = tmp_path / "cache.sqlite3"
    first = await run(settings, JudgeCache(path), rubric, evidence)
    second = await run(settings, JudgeCache(path), rubric, evidence)
    assert server.count == 1
    assert (first.stats.cache_misses, second.stats.cache_hits, second.stats.requests) == (1, 1, 0)


@pytest.mark.parametrize("change", [{"model": "other"}, {"temperature": 0.7}, {"seed": 3}, {"max_tokens": 64},
                                    {"response_format": "none"}])
async def test_other_judge_settings_miss(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric,
                                         evidence: Evidence, tmp_path: Path, change: dict[str, object]) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    await run(settings, cache, rubric, evidence)
    await run(replace(settings, **change), cache, rubric, evidence)  # type: ignore[arg-type]
    assert server.count == 2


async def test_other_rubric_or_evidence_miss(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric,
                                             evidence: Evidence, tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    await run(settings, cache, rubric, evidence)
    reweighted = Rubric(criteria=(replace_weight(rubric.criteria[0], 5.0), rubric.criteria[1]))
    await run(settings, cache, reweighted, evidence)
    await run(settings, cache, rubric, Evidence(evidence.payload + b" ", 0, evidence.max_context_bytes))
    assert server.count == 3


def replace_weight(criterion: Criterion, weight: float) -> Criterion:
    return Criterion(name=criterion.name, description=criterion.description, weight=weight)


def test_key_covers_the_prompt_version(monkeypatch: pytest.MonkeyPatch, settings: JudgeSettings, rubric: Rubric,
                                       evidence: Evidence) -> None:
    request = score_request(rubric, evidence)
    before = cache_key(settings.provenance(), request)
    assert cache_key(settings.provenance(), request) == before
    newer = dataclasses.replace(request, prompt_version="atif-context-v3")
    assert cache_key(settings.provenance(), newer) != before


async def test_only_the_validated_answer_is_stored(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                   rubric: Rubric, evidence: Evidence, tmp_path: Path) -> None:
    server.queue(ScriptedReply.prose({"scores": {"correctness": 1, "safety": 0}, "rationale": "r" * 3000,
                                      "extra": "kept out"}))
    cache = JudgeCache(tmp_path / "c.sqlite3")
    await run(settings, cache, rubric, evidence)
    (stored,) = sqlite3.connect(tmp_path / "c.sqlite3").execute("SELECT reply FROM judge_replies").fetchone()
    assert orjson.loads(stored) == {"scores": {"correctness": 1.0, "safety": 0.0}, "rationale": "r" * 2000}


async def test_an_unreadable_entry_is_asked_again_and_replaced(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                               rubric: Rubric, evidence: Evidence,
                                                               tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    key = cache_key(settings.provenance(), score_request(rubric, evidence))
    cache.put(key, "score", {"scores": {"correctness": 2}})
    judge = await run(settings, cache, rubric, evidence)
    assert (server.count, judge.stats.cache_hits) == (1, 0)
    assert cache.get(key) == {"scores": {"correctness": 0.75, "safety": 0.75}, "rationale": "scripted verdict"}


def test_default_path_honours_the_environment(tmp_path: Path) -> None:
    assert default_cache_path({"TRACEGRADE_CACHE_DIR": str(tmp_path)}) == tmp_path / "judge.sqlite3"
    assert default_cache_path({}).parts[-3:] == (".cache", "tracegrade", "judge.sqlite3")


def _writer(path: str, worker: int, count: int) -> None:
    cache = JudgeCache(path)
    for i in range(count):
        cache.put(f"k{i % 50}", "score", {"worker": worker, "i": i})  # shared keys: replace races
        cache.put(f"w{worker}-{i}", "score", {"worker": worker, "i": i})
        cache.get(f"k{(i * 7) % 50}")
    cache.close()


def test_concurrent_writers_from_several_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite3")
    JudgeCache(path).close()
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(path, w, 200)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=60)
    assert [p.exitcode for p in workers] == [0, 0, 0, 0]
    cache = JudgeCache(path)
    assert len(cache) == 50 + 4 * 200
    assert all(cache.get(f"w{w}-{i}") == {"worker": w, "i": i} for w in range(4) for i in range(200))
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)
