from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.integrations.servers import recording_server, url_of
from tests.integrations.test_otel import received
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer


def judge(paths: Path, out: Path, server: ScriptedJudgeServer) -> list[str]:
    return ["judge", str(paths), "--judge-url", server.base_url, "--judge-model", "m", "-o", str(out), "--no-cache",
            "--otel-evaluations"]


def test_otel_evaluations_without_an_endpoint_is_refused_before_any_judge_call(
    tmp_path: Path, server: ScriptedJudgeServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    assert run_app(app, judge(EXAMPLES / "atif", tmp_path / "run", server)) == 2
    assert "--otel-evaluations: set OTEL_EXPORTER_OTLP_ENDPOINT" in capsys.readouterr().err
    assert server.count == 0 and not (tmp_path / "run").exists()


def test_otel_evaluations_sends_one_event_per_judged_step_and_trajectory(
    tmp_path: Path, server: ScriptedJudgeServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with recording_server() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", url_of(receiver) + "/v1/logs")
        assert run_app(app, judge(EXAMPLES / "atif", tmp_path / "run", server)) == 0
        events = received(receiver)
    # the bundled examples: 19 scorable steps in 4 trajectories, none from OpenTelemetry (no parent span)
    assert len(events) == 19 + 4 and all(e["span_id"] == "" for e in events)
    assert "OpenTelemetry: sent 23 evaluation events" in capsys.readouterr().out
