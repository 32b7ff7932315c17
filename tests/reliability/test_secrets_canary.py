"""Secrets: a canary API key never reaches an output, log, exception, report, MLflow param or OTel attribute.

A full ``tracegrade judge`` run uses the canary as its judge key, with MLflow logging to a local SQLite
store and OpenTelemetry metrics exported to a loopback receiver, while the judge answers with errors,
garbage and retries; then every byte the run produced is scanned for the canary (raw, base64 and
URL-encoded forms).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from tests.atif.scripted import marker_rule, trajectory, write
from tests.integrations.servers import recording_server, url_of
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply

CANARY = "sk-canary-7f3e9d21c4b8a6f0e5d2c1b0a9f8e7d6"
FORMS = [CANARY.encode(), base64.b64encode(CANARY.encode()), urllib.parse.quote(CANARY).encode(),
         CANARY[8:].encode()]


def leaks(data: bytes) -> bool:
    return any(form in data for form in FORMS)


def hostile_rule(request: ReceivedRequest) -> ScriptedReply:
    """Valid answers, except a few errors; an error body that reflects the request's headers back."""
    if request.index == 1:
        return ScriptedReply.error(500, body=json.dumps({"error": {"echo": request.headers}}).encode())
    if request.index == 2:
        return ScriptedReply.error(429, retry_after=0.01)
    if request.index == 3:
        return ScriptedReply.text("<html>502 Bad Gateway</html>")
    return marker_rule(request)


@pytest.mark.slow
def test_a_canary_key_appears_in_no_output_log_report_mlflow_param_or_otel_export(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        write(tmp_path / "in" / f"{name}.json", trajectory("task", "SCORE:0.2", "SCORE:0.9"))
    with ScriptedJudgeServer(hostile_rule) as judge, recording_server() as otlp:
        env = {**os.environ, "TG_CANARY_KEY": CANARY, "OTEL_EXPORTER_OTLP_ENDPOINT": url_of(otlp),
               "TRACEGRADE_CACHE_DIR": str(tmp_path / "cache"), "PYTHONWARNINGS": "always"}
        argv = [sys.executable, "-c", "from tracegrade.cli import main; main()", "judge", str(tmp_path / "in"),
                "--judge-url", judge.base_url, "--judge-model", "m", "--judge-api-key-env", "TG_CANARY_KEY",
                "--judge-max-attempts", "2", "--judge-initial-backoff-seconds", "0.01",
                "--partial-result-policy", "skip_failed_trajectory", "-o", str(tmp_path / "run"),
                "--mlflow", "--mlflow-uri", f"sqlite:///{tmp_path / 'mlflow.db'}"]
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, timeout=300, check=False)
        headers = [r.headers.get("authorization", "") for r in judge.requests]
        exports = [body for _, body in otlp.posts]
    assert done.returncode in (0, 1, 4), done.stderr.decode(errors="replace")[-2000:]
    assert headers and all(h == f"Bearer {CANARY}" for h in headers)  # the key was really used...
    assert exports  # ...metrics really went out...
    scanned = {"stdout": done.stdout, "stderr": done.stderr}
    scanned.update({f"otlp[{i}]": body for i, body in enumerate(exports)})
    scanned.update({str(p.relative_to(tmp_path)): p.read_bytes() for p in tmp_path.rglob("*")
                    if p.is_file() and "in" not in p.relative_to(tmp_path).parts})
    assert any(name.startswith("run") for name in scanned) and any("mlflow" in name for name in scanned)
    assert [name for name, data in scanned.items() if leaks(data)] == []  # ...and it is written nowhere


@pytest.mark.parametrize("failure", ["unreachable", "reflected_401"])
def test_failing_runs_keep_the_canary_out_of_errors_and_debug_logs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture, failure: str) -> None:
    import logging

    from tests.integrations.servers import free_port
    from tracegrade.cli._app import app, run_app

    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("TG_CANARY_KEY", CANARY)
    write(tmp_path / "in" / "a.json", trajectory("task", "SCORE:0.9"))

    def reflect(request: ReceivedRequest) -> ScriptedReply:
        return ScriptedReply.error(401, body=json.dumps({"error": "bad key", "headers": request.headers}).encode())

    with ScriptedJudgeServer(reflect) as judge:
        url = f"http://127.0.0.1:{free_port()}" if failure == "unreachable" else judge.base_url
        code = run_app(app, ["judge", str(tmp_path / "in"), "--judge-url", url, "--judge-model", "m",
                             "--judge-api-key-env", "TG_CANARY_KEY", "--judge-max-attempts", "2",
                             "--judge-initial-backoff-seconds", "0.01", "-o", str(tmp_path / "run"),
                             "--cache", str(tmp_path / "cache.sqlite3"), "--scoring-mode", "benchmark",
                             "--benchmark-name", "terminal-bench"])
    captured = capsys.readouterr()
    assert code == 4
    texts = [captured.out.encode(), captured.err.encode(), caplog.text.encode()]
    texts += [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "in" not in p.parts]
    assert not any(leaks(text) for text in texts)
