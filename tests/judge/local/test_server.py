from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import require_local_judge, unavailable
from tracegrade.judge import LocalJudge
from tracegrade.judge.local import _server
from tracegrade.judge.local._plain import PLAIN_CHAT_TEMPLATE
from tracegrade.judge.local._server import (
    NO_EXTRA_BUFFERS,
    PARENT_VARIABLE,
    REPEAT_PENALTY,
    WAIT_POLICY,
    ServerConfig,
    parse_args,
    server_params,
)


def needs_xllamacpp() -> None:
    if importlib.util.find_spec("xllamacpp") is None:
        unavailable("xllamacpp is not installed (pip install 'tracegrade[local-judge]')")


def test_the_command_line_gives_the_server_its_settings() -> None:
    config = parse_args(["--model", "m.gguf", "--port", "8123", "--alias", "judge", "--n-ctx", "4096",
                         "--threads", "3", NO_EXTRA_BUFFERS])
    assert config == ServerConfig(model="m.gguf", port=8123, alias="judge", n_ctx=4096, threads=3,
                                  extra_buffers=False)
    assert parse_args(["--model", "m.gguf", "--port", "1"]).extra_buffers is True


def test_the_server_listens_on_loopback_with_one_slot_the_plain_template_and_the_penalty() -> None:
    needs_xllamacpp()
    params = server_params(ServerConfig(model="m.gguf", port=8123, alias="judge", n_ctx=4096, threads=3))
    assert (params.model.path, list(params.hostnames), params.port) == ("m.gguf", ["127.0.0.1"], 8123)
    assert (set(params.model_alias), params.n_ctx, params.n_parallel) == ({"judge"}, 4096, 1)
    assert (params.cpuparams.n_threads, params.cpuparams_batch.n_threads) == (3, 3)
    assert params.use_jinja and params.chat_template == PLAIN_CHAT_TEMPLATE
    assert params.sampling.penalty_repeat == pytest.approx(REPEAT_PENALTY) and not params.no_extra_bufts
    assert params.cache_ram_mib == 0  # llama.cpp's default keeps up to 8 GiB of earlier prompts' state
    assert server_params(ServerConfig(model="m.gguf", port=1, extra_buffers=False)).no_extra_bufts


def test_the_server_waits_passively_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str | None] = []

    class Loaded(Exception):
        pass

    def import_module(name: str) -> Any:
        seen.append(os.environ.get(WAIT_POLICY[0]))  # what the OpenMP runtime reads when it loads
        raise Loaded

    monkeypatch.setattr(_server.importlib, "import_module", import_module)
    monkeypatch.delenv(PARENT_VARIABLE, raising=False)
    monkeypatch.delenv(WAIT_POLICY[0], raising=False)
    with pytest.raises(Loaded):
        _server.main(["--model", "m.gguf", "--port", "1"])
    monkeypatch.setenv(WAIT_POLICY[0], "ACTIVE")
    with pytest.raises(Loaded):
        _server.main(["--model", "m.gguf", "--port", "1"])
    assert seen == ["PASSIVE", "ACTIVE"]


def test_a_model_that_does_not_load_ends_the_server_with_one_line(tmp_path: Path) -> None:
    needs_xllamacpp()
    missing = tmp_path / "missing.gguf"
    done = subprocess.run([sys.executable, "-m", "tracegrade.judge.local._server", "--model", str(missing),
                           "--port", "1", NO_EXTRA_BUFFERS], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    # llama.cpp's log thread may still be writing to the same stream, so the line is looked for anywhere
    assert f"the local judge server did not start with model {missing}: " in done.stderr


@pytest.mark.slow
@pytest.mark.local_judge
def test_the_real_server_sends_plain_prompts_and_log_probabilities_from_before_the_grammar(tmp_path: Path) -> None:
    """Loads the model: llama.cpp's own template engine renders the plain template, and an answer held to a
    schema reports, for the tokens after the JSON, alternatives the grammar refuses (the model's own
    distribution, from which the local judge's scores are read)."""
    require_local_judge()
    messages = [{"role": "user", "content": 'Steps checked for problems.\n\nTask: list the files.\nStep:\n'
                 'Message: Listing them with ls.\nProblem:\n{"problem": "none"}'},
                {"role": "user", "content": "Task: count the files.\nStep:\nMessage: There are 3 files.\nProblem:\n"}]
    schema = {"type": "object", "properties": {"problem": {"type": "string", "enum": ["none", "made up facts"]}},
              "required": ["problem"], "additionalProperties": False}

    async def ask() -> tuple[dict[str, Any], dict[str, Any]]:
        async with LocalJudge(cache_dir=tmp_path) as settings, aiohttp.ClientSession(trust_env=False) as client:
            root = settings.base_url
            async with client.post(f"{root}/apply-template", json={"messages": messages}) as response:
                template = await response.json()
            body = {"model": settings.model, "messages": messages, "temperature": 0.0, "max_tokens": 64,
                    "response_format": {"type": "json_object", "schema": schema}, "logprobs": True,
                    "top_logprobs": 20}
            async with client.post(f"{root}/v1/chat/completions", json=body) as response:
                return template, await response.json()

    template, answer = asyncio.run(ask())
    assert template["prompt"] == f"{messages[0]['content']}\n\n{messages[1]['content']}"
    choice = answer["choices"][0]
    assert json.loads(choice["message"]["content"])["problem"] in ("none", "made up facts")
    tokens = choice["logprobs"]["content"]
    text = "".join(t["token"] for t in tokens)
    assert text.startswith(choice["message"]["content"])
    for token in tokens:
        assert token["top_logprobs"][0]["logprob"] >= token["logprob"] - 1e-6  # the best alternative is listed
    outside = [t for t in tokens if not any(a["token"] == t["token"] for a in t["top_logprobs"][:1])]
    assert outside  # somewhere the grammar refused the model's first choice, which is still reported


def test_the_server_ends_when_the_process_that_started_it_is_killed(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    pid_file = tmp_path / "child.pid"
    child = ("import os, time, pathlib; from tracegrade.judge.local._server import stop_with_parent; "
             f"stop_with_parent(); pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid())); time.sleep(120)")
    parent = ("import os, subprocess, sys, time; "
              f"subprocess.Popen([sys.executable, '-c', {child!r}], env={{**os.environ, 'TRACEGRADE_LLAMA_PARENT': "
              "str(os.getpid())}); time.sleep(120)")
    starter = subprocess.Popen([sys.executable, "-c", parent])
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        server = int(pid_file.read_text())
        assert _alive(server)
        starter.kill()  # SIGKILL: the parent cleans nothing up
        starter.wait()
        deadline = time.monotonic() + 30
        while _alive(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(server)
    finally:
        starter.kill()


def test_a_server_whose_parent_has_already_ended_does_not_start() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    env = {**os.environ, PARENT_VARIABLE: "1"}  # init never starts it: the parent check fails at once
    done = subprocess.run([sys.executable, "-m", "tracegrade.judge.local._server", "--model", "x.gguf"],
                          capture_output=True, text=True, timeout=60, check=False, env=env)
    assert done.returncode == 1
    assert "the process that started the local judge server (1) has ended" in done.stderr


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, killed but not yet reaped by init, counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"
