from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import urllib.error
from pathlib import Path
from typing import Any

import pytest

from tests.atif.reviewing.runs import EXAMPLES, Server, judged
from tracegrade.atif.agreement._labels import read_labels
from tracegrade.cli._app import app, run_app
from tracegrade.cli._review import can_open_browser


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return judged(EXAMPLES, tmp_path_factory.mktemp("review-cli") / "run")


def test_sigkill_after_or_during_each_answer_never_leaves_a_torn_labels_file(run: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    written = 0
    for round_ in range(6):
        server = Server(run, labels)
        state = server.call("api/state")["state"]
        assert state["progress"]["answered"] == written  # resumes where the reviewer left off
        if round_ % 2 == 0:
            server.answer_current(failed=round_ % 4 == 0, score=0.5, note="x" * 3000)
            server.kill()
            written += 1
        else:  # killed with the answer in flight: it is either all there or not at all
            item = state["item"]
            body = {"node_id": item["node_id"], "step": item["step"], "failed": True, "note": "y" * 3000}
            thread = threading.Thread(target=_ignore_errors, args=(server.call, "api/answer", body))
            thread.start()
            time.sleep(0.005 * round_)
            server.kill()
            thread.join(timeout=60)
        found = read_labels(labels) if labels.exists() and labels.stat().st_size else ()  # strict: torn lines fail
        assert len(found) in (written, written + 1)
        assert labels.read_bytes().endswith(b"\n") or not labels.read_bytes()
        written = len(found)
    assert written >= 3


def _ignore_errors(call: Any, *args: Any) -> None:
    with contextlib.suppress(urllib.error.URLError, ConnectionError, OSError):
        call(*args)


def test_the_server_stops_cleanly_on_sigterm_and_says_how_to_compare(run: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    server = Server(run, labels, "--order", "random", "--seed", "2")
    server.answer_current(failed=False)
    server.process.send_signal(signal.SIGTERM)
    out, err = server.process.communicate(timeout=60)
    assert server.process.returncode == 0, err
    printed = "".join(server.printed) + out
    assert "order random (seed 2)" in printed and "1 answers by 'ann'" in printed
    assert f"tracegrade agree {run} --labels {labels} --reviewer ann" in printed
    assert server.url.startswith("http://127.0.0.1:")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--order", "sideways"], "--order 'sideways': give lowest, contested or random"),
        (["--reviewer", " "], "--reviewer ' ': give a printable name"),
    ],
)
def test_bad_options_exit_2(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                            message: str) -> None:
    assert run_app(app, ["review", str(run), "--labels", str(tmp_path / "l.jsonl"), "--no-open", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_folder_that_is_no_finished_run_or_labels_the_reader_refuses_exit_2(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_app(app, ["review", str(tmp_path), "--no-open"]) == 2
    assert "not a complete run folder" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"node_id": "x", "step": 1, "failed": true}\n{"node_id": "x", "failed": maybe}\n')
    assert run_app(app, ["review", str(run), "--labels", str(bad), "--no-open"]) == 2
    assert f"{bad}:2" in capsys.readouterr().err


def test_a_browser_is_opened_only_where_one_can_be_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert not can_open_browser()
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert can_open_browser()


def test_a_fifo_as_the_labels_file_is_refused_at_once(run: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "labels.jsonl"
    os.mkfifo(fifo)
    assert run_app(app, ["review", str(run), "--labels", str(fifo), "--no-open"]) == 2
    assert f"{fifo}: not a regular file" in capsys.readouterr().err
