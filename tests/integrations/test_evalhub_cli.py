from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.integrations.conftest import AdapterFactory
from tests.integrations.servers import _Recorder, events, stop
from tracegrade.atif import CriteriaInputs, ScoringOptions
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer


def test_provider_yaml_points_at_this_installation(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["evalhub", "provider-yaml", "--env", "OTEL_EXPORTER_OTLP_ENDPOINT=http://otel:4318"]) == 0
    provider = yaml.safe_load(capsys.readouterr().out)

    assert provider["id"] == "atif"
    assert (
        provider["runtime"]["local"]["command"] == f"{shlex.quote(sys.executable)} -m tracegrade.integrations.evalhub"
    )
    assert provider["runtime"]["local"]["env"] == [{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel:4318"}]
    assert provider["runtime"]["k8s"]["entrypoint"] == ["python", "-m", "tracegrade.integrations.evalhub"]
    (benchmark,) = provider["benchmarks"]
    assert benchmark["id"] == "atif_trajectory_default" and benchmark["pass_criteria"] == {"threshold": 0.5}
    assert benchmark["primary_score"] == {"metric": "atif_overall_score", "lower_is_better": False}
    declared = {p["name"] for p in provider["parameters"]}
    assert declared == set(ScoringOptions.model_fields) | set(CriteriaInputs.model_fields)


def test_provider_yaml_to_a_file_with_an_image(tmp_path: Path) -> None:
    target = tmp_path / "providers" / "atif.yaml"
    assert run_app(app, ["evalhub", "provider-yaml", "--image", "registry.local/tg:1", "-o", str(target)]) == 0
    assert yaml.safe_load(target.read_text())["runtime"]["k8s"]["image"] == "registry.local/tg:1"


def test_provider_yaml_refuses_a_malformed_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["evalhub", "provider-yaml", "--env", "NOVALUE"]) == 2
    assert "--env: expected NAME=VALUE" in capsys.readouterr().err


def test_evalhub_run_executes_the_job_spec(make_adapter: AdapterFactory, corpus: Path, sink: _Recorder) -> None:
    adapter, _ = make_adapter({"trajectory_path": str(corpus)})
    assert run_app(app, ["evalhub", "run", "--job-spec", str(adapter.settings.job_spec_path)]) == 0
    assert events(sink)[-1]["status"] == "completed"
    assert events(sink)[-1]["metrics"]["atif_trajectory_count"] == 4


def test_evalhub_run_exit_code_follows_the_failure(make_adapter: AdapterFactory, sink: _Recorder) -> None:
    adapter, _ = make_adapter({"completion_threshold": 7})
    assert run_app(app, ["evalhub", "run", "--job-spec", str(adapter.settings.job_spec_path)]) == 2
    assert events(sink)[-1]["status"] == "failed"


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
