from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import unavailable
from tracegrade.judge.local._server import NO_EXTRA_BUFFERS, PARENT_VARIABLE, _disable_extra_buffers, extra_buffers


@pytest.fixture(autouse=True)
def _llama_cpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        unavailable("llama_cpp is not installed (pip install 'tracegrade[local-judge]')")


def test_without_extra_buffers_every_model_is_loaded_with_them_off(monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_cpp.llama_cpp as low_level

    monkeypatch.setattr(low_level, "llama_model_default_params", low_level.llama_model_default_params)  # restored after
    assert low_level.llama_model_default_params().use_extra_bufts
    _disable_extra_buffers()
    assert not low_level.llama_model_default_params().use_extra_bufts


def test_a_model_loaded_in_process_takes_the_extra_buffers_setting_for_the_block_only() -> None:
    import llama_cpp.llama_cpp as low_level

    default = low_level.llama_model_default_params
    with extra_buffers(False):
        assert not low_level.llama_model_default_params().use_extra_bufts
    assert low_level.llama_model_default_params is default
    with extra_buffers(True):
        assert low_level.llama_model_default_params().use_extra_bufts
    with pytest.raises(RuntimeError), extra_buffers(False):
        raise RuntimeError("a failed load")
    assert low_level.llama_model_default_params is default


def test_the_server_takes_its_own_flag_off_before_llama_cpp_reads_the_rest(tmp_path: Path) -> None:
    missing = tmp_path / "missing.gguf"
    argv = [NO_EXTRA_BUFFERS, "--model", str(missing)]
    done = subprocess.run([sys.executable, "-m", "tracegrade.judge.local._server", *argv],
                          capture_output=True, text=True, timeout=120, check=False)
    assert "unrecognized arguments" not in done.stderr  # llama.cpp's own parser never saw the flag
    assert f"Model path does not exist: {missing}" in done.stderr  # it got as far as loading the model


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
