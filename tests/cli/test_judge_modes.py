from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.atif.scripted import marker_rule
from tracegrade.cli._app import app, run_app
from tracegrade.cli._judge_modes import prices_from
from tracegrade.errors import ConfigError
from tracegrade.judge.testing import ScriptedJudgeServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "atif"


def test_a_dry_run_writes_only_its_report_and_sends_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedJudgeServer(marker_rule) as server:
        code = run_app(app, ["judge", str(EXAMPLES), "--judge-url", server.base_url, "--judge-model", "m",
                             "--scoring-mode", "benchmark", "--benchmark-name", "terminal-bench", "--dry-run",
                             "--judge-batch", "--price-input", "0.15", "--price-cached-input", "0.075",
                             "--price-output", "0.6", "-o", str(tmp_path / "run"),
                             "--cache", str(tmp_path / "cache.sqlite3")])
        assert code == 0 and server.count == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no cache file made
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["dry_run.json"]
    document = orjson.loads((tmp_path / "run" / "dry_run.json").read_bytes())
    assert document["purposes"]["score"]["requests"] == 19 and document["batch"] is True
    assert document["total"]["cost_batch_with_cache"] > 0
    out = capsys.readouterr().out
    assert "text / 4" in out and "upper bound" in out


def test_prices_go_together() -> None:
    assert prices_from(None, None, None, 0.5) is None
    with pytest.raises(ConfigError):
        prices_from(0.15, None, None, 0.5)
    with pytest.raises(ConfigError):
        prices_from(0.15, None, 0.6, 1.5)
    prices = prices_from(0.15, None, 0.6, 0.5)
    assert prices is not None and prices.cached_input == 0.15


def batch_command(server_url: str, tmp_path: Path, *extra: str) -> list[str]:
    return ["judge", str(EXAMPLES), "--judge-url", server_url, "--judge-model", "m", "--scoring-mode", "benchmark",
            "--benchmark-name", "terminal-bench", "--judge-batch", "-o", str(tmp_path / "run"),
            "--cache", str(tmp_path / "cache.sqlite3"), *extra]


def test_judge_batch_reports_each_batch_while_it_waits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.judge.batch_server import BatchServer

    with BatchServer(marker_rule) as server:
        code = run_app(app, batch_command(server.base_url, tmp_path, "--judge-batch-poll-seconds", "0.01"))
        assert code == 0 and server.created == 1
    err = capsys.readouterr().err
    assert "19 requests sent" in err and "in_progress, 0 of 19 done" in err and "completed, 19 of 19 done" in err
    names = {p.name for p in (tmp_path / "run").iterdir()}
    assert {"batch.json", "evaluation_results.json", "manifest.json"} <= names


def test_a_stopped_wait_keeps_the_batch_a_cancel_ends_it_and_its_missing_answers_are_errors(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.judge.batch_server import BatchServer

    repo = EXAMPLES.parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo / "src"), str(repo)])}
    with BatchServer(marker_rule) as server:
        command = [sys.executable, "-c", "from tracegrade.cli import main; main()",
                   *batch_command(server.base_url, tmp_path, "--judge-batch-poll-seconds", "60")]
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not any(b.looks for b in server.batches.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # now asleep between two looks
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 130, err.decode()[-1500:]
        assert b"batch.json" in err and b"sends nothing twice" in err
        assert run_app(app, batch_command(server.base_url, tmp_path, "--judge-batch-cancel")) == 0
        assert [b.status for b in server.batches.values()] == ["cancelling"]
        code = run_app(app, batch_command(server.base_url, tmp_path, "--judge-batch-poll-seconds", "0.01"))
        assert code == 4 and server.created == 1 and not server.paid  # nothing answered, nothing sent again
    results = orjson.loads((tmp_path / "run" / "evaluation_results.json").read_bytes())
    codes = {s["error_code"] for n in results["nodes"] for s in n["steps"] if s["error_code"]}
    assert codes == {"batch_cancelled"}


def test_batch_mode_without_the_cache_is_refused_before_the_run_folder_is_touched(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "manifest.json").write_text("{}")
    code = run_app(app, ["judge", str(EXAMPLES), "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m",
                         "--judge-batch", "--no-cache", "-o", str(tmp_path / "run"), "--quiet"])
    assert code == 2 and (tmp_path / "run" / "manifest.json").read_text() == "{}"
