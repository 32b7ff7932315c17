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
