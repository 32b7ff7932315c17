from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
import sqlite3
import threading
from pathlib import Path

import orjson
import pytest

from tests.conftest import tuned
from tracegrade.atif.asking._evidence import Evidence
from tracegrade.atif.asking._prompts import score_request
from tracegrade.atif.asking._questions import score_step
from tracegrade.errors import ConfigError
from tracegrade.judge import Judge, JudgeCache, JudgeSettings, cache_key, default_cache_path, dumps
from tracegrade.judge._cache import CacheKeys
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


@pytest.mark.parametrize("change", [{"model": "other"}, {"judge_temperature": 0.7}, {"judge_seed": 3},
                                    {"judge_max_tokens": 64}, {"response_format": "none"}])
async def test_other_judge_settings_miss(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric,
                                         evidence: Evidence, tmp_path: Path, change: dict[str, object]) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    await run(settings, cache, rubric, evidence)
    await run(tuned(settings, **change), cache, rubric, evidence)
    assert server.count == 2


async def test_other_rubric_or_evidence_miss(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric,
                                             evidence: Evidence, tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    await run(settings, cache, rubric, evidence)
    reweighted = Rubric(criteria=(replace_weight(rubric.criteria[0], 5.0), rubric.criteria[1]))
    await run(settings, cache, reweighted, evidence)
    await run(settings, cache, rubric, dataclasses.replace(evidence, tools=evidence.tools + " "))
    assert server.count == 3


def replace_weight(criterion: Criterion, weight: float) -> Criterion:
    return Criterion(name=criterion.name, description=criterion.description, weight=weight)


def test_key_covers_the_prompt_version(monkeypatch: pytest.MonkeyPatch, settings: JudgeSettings, rubric: Rubric,
                                       evidence: Evidence) -> None:
    request = score_request(rubric, evidence)
    before = cache_key(settings.provenance(), request)
    assert cache_key(settings.provenance(), request) == before
    newer = dataclasses.replace(request, prompt_version="atif-context-v99")
    assert cache_key(settings.provenance(), newer) != before


def test_keys_hashed_once_per_judge_equal_the_documented_digest(settings: JudgeSettings, rubric: Rubric,
                                                                 evidence: Evidence) -> None:
    provenance = settings.provenance()
    keys = CacheKeys(provenance)
    first = score_request(rubric, evidence)
    second = dataclasses.replace(first, prompt_version="atif-context-v99")
    for request in (first, second, first):  # the shared provenance digest is never consumed by a key
        expected = hashlib.sha256(dumps(provenance) + b"\x00" + request.prompt_version.encode() + b"\x00"
                                  + request.canonical).hexdigest()
        assert keys.key(request) == cache_key(provenance, request) == expected


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
    assert stored(cache, key) == {"scores": {"correctness": 0.75, "safety": 0.75},
                              "rationale": "Scripted judge: no cue matched this step."}


def stored(cache: JudgeCache, key: str) -> object:
    found = cache.get_with_tokens(key)
    return None if found is None else found[0]


def test_default_path_honours_the_environment(tmp_path: Path) -> None:
    assert default_cache_path({"TRACEGRADE_CACHE_DIR": str(tmp_path)}) == tmp_path / "judge.sqlite3"
    assert default_cache_path({}).parts[-3:] == (".cache", "tracegrade", "judge.sqlite3")


def _writer(path: str, worker: int, count: int) -> None:
    cache = JudgeCache(path)
    for i in range(count):
        cache.put(f"k{i % 50}", "score", {"worker": worker, "i": i})  # shared keys: replace races
        cache.put(f"w{worker}-{i}", "score", {"worker": worker, "i": i})
        cache.get_with_tokens(f"k{(i * 7) % 50}")
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
    assert all(stored(cache, f"w{w}-{i}") == {"worker": w, "i": i} for w in range(4) for i in range(200))
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


# Item 4 and 6 of issue 14: a locked cache never loses the run's results; answers are written ahead.


def _hold_lock(path: str, exclusive_mode: bool, ready: object, release: object) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    if exclusive_mode:
        db.execute("PRAGMA locking_mode = EXCLUSIVE")
    db.execute("BEGIN EXCLUSIVE")
    db.execute("INSERT OR REPLACE INTO judge_replies (key, purpose, reply, created) VALUES ('locker', 'x', X'7B7D', 0)")
    ready.set()  # type: ignore[attr-defined]
    release.wait(30)  # type: ignore[attr-defined]
    db.execute("COMMIT")
    db.close()


class Locker:
    """Another process holding the cache's write lock (or, in exclusive mode, every lock)."""

    def __init__(self, path: Path, *, exclusive_mode: bool = False) -> None:
        JudgeCache(path).close()
        context = multiprocessing.get_context("fork")
        self.ready, self.release = context.Event(), context.Event()
        self.process = context.Process(target=_hold_lock, args=(str(path), exclusive_mode, self.ready, self.release))

    def __enter__(self) -> Locker:
        self.process.start()
        assert self.ready.wait(10)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release.set()
        self.process.join(10)


async def test_a_write_locked_cache_loses_no_result(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                    rubric: Rubric, evidence: Evidence, tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "c.sqlite3"
    with Locker(path):
        cache = JudgeCache(path, lock_wait=0.3)
        async with Judge(settings, cache=cache) as judge:
            judgement = await score_step(judge, rubric, evidence)
        cache.close()
    assert judgement.score == pytest.approx(0.75)
    assert cache.unsaved == 1
    assert "could not be stored (database is locked)" in caplog.text


async def test_a_lock_released_within_the_wait_gets_the_answer_stored(
        server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric, evidence: Evidence,
        tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with Locker(path) as locker:
        cache = JudgeCache(path, lock_wait=10)
        threading.Timer(0.5, locker.release.set).start()
        await run(settings, cache, rubric, evidence)  # closing the judge waits for the lock
        cache.close()
    assert (cache.unsaved, len(JudgeCache(path))) == (0, 2)


async def test_a_cache_locked_even_for_reading_is_skipped_with_a_warning(
        server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric, evidence: Evidence, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "c.sqlite3"
    with Locker(path, exclusive_mode=True):
        cache = JudgeCache(path, lock_wait=0.3)
        judge = await run(settings, cache, rubric, evidence)
        cache.close()
    assert (judge.stats.requests, cache.unsaved) == (1, 1)
    assert "goes on without it" in caplog.text


async def test_every_answer_is_committed_before_ask_returns(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                            rubric: Rubric, evidence: Evidence,
                                                            tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    cache = JudgeCache(path)
    judge = Judge(settings, cache=cache)
    await score_step(judge, rubric, evidence)
    # another connection (as after a SIGKILL of this process) already sees the row
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM judge_replies").fetchone() == (1,)
    await judge.aclose()


def test_a_file_that_is_not_a_database_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(ConfigError) as caught:
        JudgeCache(path)
    assert caught.value.code == "cache_unusable"


async def test_a_write_locked_cache_still_serves_stored_answers(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                                rubric: Rubric, evidence: Evidence,
                                                                tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    await run(settings, JudgeCache(path), rubric, evidence)
    other = dataclasses.replace(evidence, tools=evidence.tools + " ")
    with Locker(path):
        cache = JudgeCache(path, lock_wait=0.2)
        async with Judge(settings, cache=cache) as judge:
            await score_step(judge, rubric, other)  # a new answer: its commit fails and backs off...
            await score_step(judge, rubric, evidence)  # ...but reading the stored one still works
        cache.close()
    assert (server.count, judge.stats.cache_hits, cache.unsaved) == (2, 1, 1)


def test_a_cache_made_before_tokens_were_kept_gains_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE judge_replies (key TEXT PRIMARY KEY, purpose TEXT NOT NULL, reply BLOB NOT NULL, "
                   "created REAL NOT NULL)")
        db.execute("INSERT INTO judge_replies VALUES ('old', 'score', X'7B7D', 0)")
    cache = JudgeCache(path)
    assert cache.get_with_tokens("old") == ({}, 0, 0)  # what it cost was not kept then
    cache.put("new", "score", {"a": 1}, (120, 7))
    cache.close()
    assert JudgeCache(path).get_with_tokens("new") == ({"a": 1}, 120, 7)
