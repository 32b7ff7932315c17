from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.integrations.servers import recording_server, url_of
from tests.integrations.test_otel import received
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer


@pytest.fixture
def run(tmp_path: Path, server: ScriptedJudgeServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    assert run_app(app, ["import", "otel", str(EXAMPLES / "traces" / "otel-genai.json"), "-o", str(tmp_path / "in"),
                         "-q"]) == 0
    assert run_app(app, ["judge", str(tmp_path / "in" / "trajectories"), "--judge-url", server.base_url,
                         "--judge-model", "m", "-o", str(tmp_path / "run"), "--no-cache", "-q"]) == 0
    return tmp_path / "run"


def test_export_otel_sends_the_run_s_verdicts(run: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with recording_server() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url_of(receiver))
        assert run_app(app, ["export", "otel", str(run)]) == 0
        events = received(receiver)
    assert len(events) == 9 + 2  # nine judged steps, two trajectories
    assert f"sent 11 evaluation events to {url_of(receiver)}/v1/logs" in capsys.readouterr().out


def test_export_otel_without_an_endpoint_or_a_run_exits_2(run: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["export", "otel", str(run)]) == 2
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" in capsys.readouterr().err
    assert run_app(app, ["export", "otel", str(tmp_path / "nothing")]) == 2
