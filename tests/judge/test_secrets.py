"""The API key must never appear in logs, errors, the cache, provenance or reprs."""

from __future__ import annotations

import logging
import traceback
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import tuned
from tracegrade.atif.asking._evidence import Evidence
from tracegrade.atif.asking._questions import score_step
from tracegrade.errors import JudgeError
from tracegrade.judge import Judge, JudgeCache, JudgeSettings
from tracegrade.judge._settings import resolve_endpoint
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply
from tracegrade.rubric import Rubric

SECRET = "sk-test-SECRET-123"


def exception_text(error: BaseException) -> str:
    return str(error) + repr(error) + "".join(traceback.format_exception(error)) + repr(vars(error))


async def test_the_key_never_leaks(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric,
                                   evidence: Evidence, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("JUDGE_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    keyed = tuned(settings, api_key_env="JUDGE_API_KEY", judge_timeout_seconds=0.3, judge_max_attempts=2)
    server.queue(ScriptedReply.answer({"scores": {"correctness": 1, "safety": 1}, "rationale": SECRET[:3]}),
                 ScriptedReply.error(401, body=f'{{"error": "bad key {SECRET}"}}'.encode()),
                 ScriptedReply.stall(2), ScriptedReply.stall(2),
                 ScriptedReply.error(500), ScriptedReply.error(500),
                 ScriptedReply.text(f"I refuse. Your key is {SECRET}"),
                 ScriptedReply.answer({"scores": {"correctness": 1}, "rationale": SECRET}))
    seen: list[str] = []
    codes: list[str] = []
    cache = JudgeCache(tmp_path / "cache.sqlite3")
    async with Judge(keyed, cache=cache) as judge:
        await score_step(judge, rubric, evidence)
        for variant in range(5):
            distinct = replace(evidence, tools=evidence.tools + " " * (variant + 1))
            with pytest.raises(JudgeError) as caught:
                await score_step(judge, rubric, distinct)
            seen.append(exception_text(caught.value))
            codes.append(caught.value.code)
        seen += [repr(judge), repr(judge.stats), repr(vars(judge)), str(judge.provenance())]
    refused = replace(keyed, base_url="http://127.0.0.1:9")
    async with Judge(refused) as offline:
        with pytest.raises(JudgeError) as caught:
            await score_step(offline, rubric, evidence)
        seen.append(exception_text(caught.value))
    cache.close()

    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"  # the key was really used
    assert codes == [
        "http_status_401", "timeout", "http_status_500", "invalid_json", "schema_violation"]
    seen += [r.getMessage() + repr(r.args) for r in caplog.records]
    seen += [repr(keyed), str(keyed.provenance()), repr(resolve_endpoint(keyed))]
    seen += [p.read_bytes().decode("latin-1") for p in tmp_path.iterdir()]
    assert caplog.records, "expected debug logging to be captured"
    for text in seen:
        assert SECRET not in text
