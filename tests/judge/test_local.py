from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from evalhub.models.atif import Observation, ObservationResult, Step, ToolCall

from tests.conftest import unavailable
from tracegrade.atif import build_evidence, score_step
from tracegrade.errors import JudgeError, MissingDependencyError
from tracegrade.judge import LOCAL_MAX_CONTEXT_BYTES, Judge, LocalJudge, _local
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.rubric import Criterion, Rubric

RUBRIC = Rubric(criteria=(Criterion(name="progress", description="The step moves the task forward", weight=1),
                          Criterion(name="accuracy", description="What the step claims is true", weight=1)))


def fake_server(monkeypatch: pytest.MonkeyPatch, script: str) -> list[subprocess.Popen[bytes]]:
    """Replace the llama.cpp server by a Python process running ``script``."""
    started: list[subprocess.Popen[bytes]] = []
    monkeypatch.setattr(_local, "check_local_judge_installed", lambda: None)
    monkeypatch.setattr(LocalJudge, "_assemble", lambda self: Path("model.gguf"))

    def spawn(self: LocalJudge, model: Path) -> int:
        self.process = subprocess.Popen([sys.executable, "-c", script])
        started.append(self.process)
        return 9  # nothing listens there

    monkeypatch.setattr(LocalJudge, "_spawn", spawn)
    return started


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'tracegrade\[local-judge\]'"):
        _local.check_local_judge_installed()


async def test_a_server_that_dies_at_start_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_server(monkeypatch, "raise SystemExit(3)")
    with pytest.raises(JudgeError) as caught:
        async with LocalJudge(cache_dir=tmp_path, startup_timeout=20):
            pass
    assert caught.value.code == "local_judge_unavailable"


async def test_cancellation_while_starting_stops_the_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    started = fake_server(monkeypatch, "import time; time.sleep(60)")

    async def use() -> None:
        async with LocalJudge(cache_dir=tmp_path, startup_timeout=60):
            pass

    task = asyncio.create_task(use())
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert started[0].poll() is not None


async def test_notice_says_the_local_judge_is_weak(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    fake_server(monkeypatch, "raise SystemExit(0)")
    with pytest.raises(JudgeError):
        async with LocalJudge(cache_dir=tmp_path, startup_timeout=5):
            pass
    assert "weak" in caplog.text


def steps() -> list[Step]:
    return [
        Step(step_id=1, source="user", message="Create a file named notes.txt containing 'hello'."),
        Step(step_id=2, source="agent", message="I will write the file.",
             tool_calls=[ToolCall(tool_call_id="c1", function_name="write_file",
                                  arguments={"path": "notes.txt", "content": "hello"})],
             observation=Observation(results=[ObservationResult(source_call_id="c1", content="wrote 5 bytes")])),
        Step(step_id=3, source="agent", message="Done: notes.txt now contains 'hello'."),
    ]


def test_the_local_judge_is_sent_the_exact_criterion_schema() -> None:
    with ScriptedJudgeServer() as server:
        settings = dataclasses.replace(LocalJudge().settings(1), base_url=server.base_url, judge_timeout_seconds=5.0)

        async def ask() -> None:
            async with Judge(settings) as judge:
                trajectory = steps()
                evidence = build_evidence("task", None, trajectory[:1], trajectory[1], None, 8192)
                await score_step(judge, RUBRIC, evidence, coarse=True)

        asyncio.run(ask())
        body = server.requests[0].json()
    schema = body["response_format"]["schema"]  # llama.cpp turns it into a grammar
    assert body["response_format"]["type"] == "json_object"
    assert schema["properties"]["scores"]["required"] == ["progress", "accuracy"]
    assert schema["properties"]["scores"]["properties"]["progress"]["enum"] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert schema["properties"]["rationale"]["maxLength"] == 400


@pytest.mark.slow
@pytest.mark.local_judge
async def test_local_judge_scores_real_steps(tmp_path: Path) -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        unavailable("llama_cpp is not installed (pip install 'tracegrade[local-judge]')")
    local = LocalJudge()
    verdicts = []
    async with local as settings:
        assert settings.max_context_bytes == LOCAL_MAX_CONTEXT_BYTES
        process = local.process
        async with Judge(settings) as judge:
            trajectory = steps()
            for index, step in enumerate(trajectory):
                evidence = build_evidence(trajectory[0].message, None, trajectory[:index], step, None,  # type: ignore[arg-type]
                                          settings.max_context_bytes)
                verdicts.append(await score_step(judge, RUBRIC, evidence, coarse=True))  # a JudgeError fails the test
        assert judge.stats.requests == 3 and judge.stats.protocol_errors == 0
    assert process is not None and process.poll() is not None
    for verdict in verdicts:  # every step really scored, with the grammar's values and a rationale of its own
        assert set(verdict.scores) == {"progress", "accuracy"}
        assert set(verdict.scores.values()) <= {0.0, 0.25, 0.5, 0.75, 1.0}
        assert verdict.rationale.strip() and not verdict.rationale.strip().startswith("<")
