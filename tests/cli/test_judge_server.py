"""``tracegrade judge-server --scripted`` as a user starts it: its own process, the URL first, stopped by a signal."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tracegrade.atif.asking._prompts import derive_request

COMMAND = [sys.executable, "-c", "from tracegrade.cli import main; main()", "judge-server"]


@contextmanager
def serving(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    process = subprocess.Popen([*COMMAND, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL)
    try:
        assert process.stdout is not None
        yield process, process.stdout.readline().strip()
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def ask_derive(url: str) -> dict[str, object]:
    request = derive_request("Fix the failing test.", 100_000)
    response = httpx.post(f"{url}/chat/completions", json={"model": "any", "messages": list(request.messages)},
                          timeout=10)
    response.raise_for_status()
    return dict(response.json())


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_prints_the_url_first_serves_and_stops_on_a_signal(signum: int) -> None:
    with serving("--scripted") as (process, url):
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        answer = ask_derive(url)
        process.send_signal(signum)
        assert process.wait(timeout=10) == 0
    content = answer["choices"][0]["message"]["content"]  # type: ignore[index]
    assert '"progress"' in content and answer["usage"]["prompt_tokens"] > 1  # type: ignore[index]


def test_a_rules_file_changes_the_answers(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("criteria:\n  - {name: thrift, description: Spends little, weight: 3}\n")
    with serving("--scripted", "--rules", str(rules)) as (process, url):
        content = ask_derive(url)["choices"][0]["message"]["content"]  # type: ignore[index]
        process.terminate()
    assert '"thrift"' in content and '"progress"' not in content


def test_a_bad_rules_file_exits_2_naming_the_place(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("cues:\n  - {match: x, score: 7}\n")
    with serving("--scripted", "--rules", str(rules)) as (process, first):
        assert process.wait(timeout=30) == 2
        assert process.stderr is not None
        error = process.stderr.read()
    assert first == ""
    assert f"{rules}: cues[0].score: expected a number from 0 to 1" in error


def test_without_scripted_it_exits_2() -> None:
    with serving() as (process, _):
        assert process.wait(timeout=30) == 2
        assert process.stderr is not None
        assert "needs --scripted" in process.stderr.read()


def test_a_port_in_use_exits_2_saying_so() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with serving("--scripted", "--port", str(port)) as (process, first):
            assert process.wait(timeout=30) == 2
            assert process.stderr is not None
            error = process.stderr.read()
    assert first == ""
    assert f"error: judge-server: cannot listen on 127.0.0.1:{port}: address already in use" in error
