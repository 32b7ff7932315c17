from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import unavailable
from tracegrade.judge._llama_server import NO_EXTRA_BUFFERS, _disable_extra_buffers


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


def test_the_server_takes_its_own_flag_off_before_llama_cpp_reads_the_rest(tmp_path: Path) -> None:
    missing = tmp_path / "missing.gguf"
    argv = [NO_EXTRA_BUFFERS, "--model", str(missing)]
    done = subprocess.run([sys.executable, "-m", "tracegrade.judge._llama_server", *argv],
                          capture_output=True, text=True, timeout=120, check=False)
    assert "unrecognized arguments" not in done.stderr  # llama.cpp's own parser never saw the flag
    assert f"Model path does not exist: {missing}" in done.stderr  # it got as far as loading the model
