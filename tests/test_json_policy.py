"""The JSON policy (docs/json-policy.md) holds at every front door: the same hostile input, the same outcome.

Each door reads a real file of its own format holding one hostile value, through the real CLI entry
(``run_app``): an ATIF trajectory (``validate`` and ``judge``), a suite's case file (``suite check``), a
DataAgent-Bench ``summary.json`` (``dabench eval-v2``) and a custom rubric file (``judge``).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from tests.atif.scripted import judge_server  # noqa: F401  (the scripted judge, a pytest fixture)
from tracegrade.cli._app import app, dabench_app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MARK = b'"__HOSTILE__"'
"""Where each door's document holds the hostile value."""

HOSTILE: dict[str, tuple[bytes, int, str]] = {
    "big integer": (b"123456789012345678901234", 0, ""),
    "duplicate key": (b'{"k": 1, "k": 2}', 2, "/k: duplicate key 'k'"),
    "NaN": (b"NaN", 2, "NaN and Infinity are not JSON"),
    "deep nesting": (b"[" * 300 + b"]" * 300, 2, "JSON nesting is deeper than 254 levels"),
    "lone surrogate": (b'"\\ud800"', 2, "a string holds a lone surrogate"),
}
"""Each hostile value: its JSON text, the exit code every door gives, and the words of the refusal."""


def _trajectory(value: bytes) -> bytes:
    doc = {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"}, "extra": {"n": "__HOSTILE__"},
           "steps": [{"step_id": 1, "source": "user", "message": "hi"},
                     {"step_id": 2, "source": "agent", "message": "SCORE:0.5"}]}
    return orjson.dumps(doc).replace(MARK, value)


def _validate(tmp: Path, value: bytes, server: ScriptedJudgeServer) -> tuple[list[str], Path]:
    (tmp / "t.json").write_bytes(_trajectory(value))
    return ["validate", str(tmp / "t.json")], tmp / "t.json"


def _judge(tmp: Path, value: bytes, server: ScriptedJudgeServer) -> tuple[list[str], Path]:
    (tmp / "t.json").write_bytes(_trajectory(value))
    return ["judge", str(tmp / "t.json"), "--judge-url", server.base_url, "--judge-model", "scripted", "--no-cache",
            "--quiet", "-o", str(tmp / "run")], tmp / "t.json"


def _rubric(tmp: Path, value: bytes, server: ScriptedJudgeServer) -> tuple[list[str], Path]:
    (tmp / "t.json").write_bytes(_trajectory(b"1"))
    rubric = {"criteria": [{"name": "quality", "description": "A good step", "weight": "__HOSTILE__"}]}
    (tmp / "rubric.json").write_bytes(orjson.dumps(rubric).replace(MARK, value))
    return ["judge", str(tmp / "t.json"), "--scoring-mode", "custom", "--custom-rubric-path", str(tmp / "rubric.json"),
            "--judge-url", server.base_url, "--judge-model", "scripted", "--no-cache", "--quiet",
            "-o", str(tmp / "run")], tmp / "rubric.json"


def _suite_check(tmp: Path, value: bytes, server: ScriptedJudgeServer) -> tuple[list[str], Path]:
    shutil.copytree(EXAMPLES / "suites", tmp / "suites")
    cases = tmp / "suites" / "cases" / "pipeline.json"
    documents = orjson.loads(cases.read_bytes())
    documents[0]["input"]["payload"] = {"n": "__HOSTILE__"}
    cases.write_bytes(orjson.dumps(documents).replace(MARK, value))
    return ["suite", "check", str(tmp / "suites" / "dataset.json")], cases


def _dabench(tmp: Path, value: bytes, server: ScriptedJudgeServer) -> tuple[list[str], Path]:
    shutil.copytree(EXAMPLES / "dabench" / "runs" / "demo-run", tmp / "run")
    summary = tmp / "run" / "summary.json"
    summary.write_bytes(orjson.dumps({**orjson.loads(summary.read_bytes()), "n": "__HOSTILE__"}).replace(MARK, value))
    return ["eval-v2", str(tmp / "run"), "--data-root", str(EXAMPLES / "dabench" / "data"), "-o",
            str(tmp / "out")], summary


DOORS: dict[str, Callable[[Path, bytes, ScriptedJudgeServer], tuple[list[str], Path]]] = {
    "validate": _validate, "judge": _judge, "rubric file": _rubric, "suite check": _suite_check,
    "dabench eval-v2": _dabench,
}


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
@pytest.mark.parametrize("door", sorted(DOORS))
def test_the_same_hostile_json_has_the_same_outcome_at_every_door(
    door: str, hostile: str, tmp_path: Path, judge_server: ScriptedJudgeServer,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    value, exit_code, words = HOSTILE[hostile]
    argv, path = DOORS[door](tmp_path, value, judge_server)
    code = run_app(dabench_app if door.startswith("dabench") else app, argv)
    printed = capsys.readouterr()  # validate reports on stdout, the other commands' errors go to stderr
    error, report = " ".join(printed.err.split()), " ".join(printed.out.split())  # long lines may be wrapped
    assert code == exit_code, error
    if exit_code:
        shown = report if door == "validate" else error
        assert words in shown and path.name in shown, shown
    else:
        assert "error" not in error and "invalid" not in report, error + report
