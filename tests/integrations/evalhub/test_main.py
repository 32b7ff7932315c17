from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integrations.conftest import AdapterFactory
from tests.integrations.servers import _Recorder, events, stop
from tracegrade.integrations.evalhub import main
from tracegrade.judge.testing import ScriptedJudgeServer


def test_module_entry_point_without_a_job_spec_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tracegrade.integrations.evalhub"],
        env={"EVALHUB_JOB_SPEC_PATH": str(tmp_path / "missing.json"), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "cannot read the job spec" in done.stderr
    assert "Traceback" not in done.stderr


def test_sigterm_stops_the_job_and_reports_it_interrupted(
    make_adapter: AdapterFactory, corpus: Path, sink: _Recorder, judge: ScriptedJudgeServer
) -> None:
    judge.latency = 0.3
    adapter, _ = make_adapter({"trajectory_path": str(corpus), "concurrency_limit": 1})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVALHUB_", "OTEL_", "MLFLOW_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "tracegrade.integrations.evalhub"],
        env={**env, "EVALHUB_JOB_SPEC_PATH": str(adapter.settings.job_spec_path)},
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while judge.count < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        stop(process)
    assert process.returncode == 130, stderr.decode()[-2000:]
    last = events(sink)[-1]
    assert last["status"] == "failed" and last["error_message"]["message_code"] == "job_interrupted"


def test_a_completed_job_reports_its_results_and_exits_0(
    make_adapter: AdapterFactory, corpus: Path, sink: _Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter, _ = make_adapter({"trajectory_path": str(corpus)})
    monkeypatch.setenv("EVALHUB_JOB_SPEC_PATH", str(adapter.settings.job_spec_path))
    assert main() == 0
    assert events(sink)[-1]["status"] == "completed"


def test_a_job_with_invalid_parameters_exits_2(make_adapter: AdapterFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    adapter, _ = make_adapter({"completion_threshold": 7})
    monkeypatch.setenv("EVALHUB_JOB_SPEC_PATH", str(adapter.settings.job_spec_path))
    assert main() == 2
