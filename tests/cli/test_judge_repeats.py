from __future__ import annotations

from pathlib import Path

import orjson

from tests.atif.scripted import marker_rule, trajectory, write
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer


def judge(server: ScriptedJudgeServer, tmp_path: Path, name: str, *args: str) -> dict:
    base = [
        "judge",
        str(tmp_path / "in"),
        "--judge-url",
        server.base_url,
        "--judge-model",
        "scripted",
        "--scoring-mode",
        "benchmark",
        "--benchmark-name",
        "terminal-bench",
        "--no-cache",
        "-q",
        "-o",
        str(tmp_path / name),
    ]
    assert run_app(app, [*base, *args]) == 0
    return orjson.loads((tmp_path / name / "evaluation_results.json").read_bytes())


def test_judge_repeats_option_asks_n_verdicts_and_one_keeps_the_job(tmp_path: Path) -> None:
    write(tmp_path / "in" / "a.json", trajectory("SCORE:0.8", "SCORE:0.6"))
    with ScriptedJudgeServer(marker_rule) as server:
        plain = judge(server, tmp_path, "plain")
        once = judge(server, tmp_path, "once", "--judge-repeats", "1")
        calls = server.count
        thrice = judge(server, tmp_path, "thrice", "--judge-repeats", "3")
        assert server.count - calls == 3 * calls // 2
    assert once["job_id"] == plain["job_id"] and once["parameters"] == plain["parameters"]
    assert thrice["parameters"]["judge_repeats"] == 3 and thrice["job_id"] != plain["job_id"]
    assert thrice["summary"]["repeats"]["steps"] == 2
    assert [s["repeats"]["scores"] for s in thrice["nodes"][0]["steps"]] == [[0.8] * 3, [0.6] * 3]
