from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from tracegrade.cli._app import app, run_app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "atif"


def test_validate_examples_json_exit_0(capsys: object) -> None:
    code = run_app(app, ["validate", str(EXAMPLES), "--format", "json"])
    out = orjson.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert code == 0 and out["valid"] is True
    roles = {Path(f["path"]).name: f["role"] for f in out["files"]}
    assert roles == {
        "trajectory.json": "root",
        "trajectory.cont-1.json": "continuation",
        "chart-agent.json": "subagent",
    }


def test_validate_invalid_exit_2(tmp_path: Path, capsys: object) -> None:
    (tmp_path / "bad.json").write_text("{")
    assert run_app(app, ["validate", str(tmp_path)]) == 2
    assert "invalid" in capsys.readouterr().out  # type: ignore[attr-defined]


def test_validate_warnings_listed(shared_corpus: Path, capsys: object) -> None:
    code = run_app(app, ["validate", str(shared_corpus / "atif/harbor/trials/rfc0001-example"), "--format", "json"])
    out = orjson.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert code == 0 and any("logprobs" in w for w in out["files"][0]["warnings"])


def test_missing_path_one_line_exit_2(capsys: object) -> None:
    assert run_app(app, ["validate", "/no/such/place"]) == 2
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert err.strip() == "error: /no/such/place: no such file or directory"


def test_console_scripts_version_and_help() -> None:
    bindir = Path(sys.executable).parent
    out = subprocess.run([bindir / "tracegrade", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("tracegrade ")
    helped = subprocess.run([bindir / "tracegrade", "validate", "--help"], capture_output=True, text=True, check=True)
    assert "Exit codes" in helped.stdout
    dab = subprocess.run([bindir / "dabench", "eval-v2", "x"], capture_output=True, text=True)
    assert dab.returncode == 2 and "not yet available" in dab.stderr


def test_usage_error_exit_2() -> None:
    assert run_app(app, ["validate", "--format", "xml", str(EXAMPLES)]) == 2
