"""Items 3, 5 and 9 of issue 14 through ``tracegrade judge``: hostile inputs and outputs end in one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.atif.scripted import marker_rule, trajectory, write
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer

BENCHMARK = ("--scoring-mode", "benchmark", "--benchmark-name", "terminal-bench")
HUGE = "9" * 5000


@pytest.fixture
def server() -> Iterator[ScriptedJudgeServer]:
    with ScriptedJudgeServer(marker_rule) as running:
        yield running


def judge(server: ScriptedJudgeServer, tmp_path: Path, *args: str, output: Path | None = None) -> int:
    return run_app(app, ["judge", "--judge-url", server.base_url, "--judge-model", "scripted", "--quiet",
                         "-o", str(output or tmp_path / "run"), "--cache", str(tmp_path / "cache.sqlite3"), *args])


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_an_eight_megabyte_step_is_an_input_problem(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    write(tmp_path / "in/a.json", trajectory("task", "x" * (8 * 1024 * 1024), "SCORE:0.9"))
    assert judge(server, tmp_path, str(tmp_path / "in"), *BENCHMARK) == 2
    results = orjson.loads((tmp_path / "run/evaluation_results.json").read_bytes())
    assert [s["error_code"] for s in results["nodes"][0]["steps"]][:2] == [None, "context_overflow"]


def test_a_judge_failure_beside_an_oversized_step_stays_operational(server: ScriptedJudgeServer,
                                                                    tmp_path: Path) -> None:
    write(tmp_path / "in/a.json", trajectory("task", "x" * (1024 * 1024)))
    write(tmp_path / "in/b.json", trajectory("task", "FAIL"))
    code = judge(server, tmp_path, str(tmp_path / "in"), *BENCHMARK, "--partial-result-policy",
                 "skip_failed_trajectory")
    assert code == 4


@pytest.mark.parametrize("rubric", [
    f'{{"criteria": [{{"name": "a", "description": "d", "weight": {HUGE}}}]}}',
    f"criteria:\n- name: a\n  description: d\n  weight: {HUGE}\n",
    f"version: {HUGE}\ncriteria:\n- name: a\n  description: d\n  weight: 1\n",
])
def test_a_five_thousand_digit_number_in_a_rubric_is_a_clear_error(
        server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], rubric: str) -> None:
    write(tmp_path / "in/a.json", trajectory("task", "SCORE:0.9"))
    assert judge(server, tmp_path, str(tmp_path / "in"), "--scoring-mode", "custom", "--rubric", rubric) == 2
    error = one_line_error(capsys)  # YAML caps a literal's length; JSON reads integers up to 4,300 digits
    assert "number literal of" in error or "line 1, column 59: an integer of 5,000 digits" in error
    assert server.count == 0


@pytest.mark.parametrize("number", [HUGE, "1" + "0" * 400, "-" + HUGE])
def test_a_huge_number_in_a_reference_registry_is_a_clear_error(
        server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], number: str) -> None:
    write(tmp_path / "in/a.json", trajectory("task", "SCORE:0.9"))
    registry = tmp_path / "registry.json"
    registry.write_text('{"version": 1, "rubrics": {"r": {"criteria": [{"name": "a", "description": "d", '
                        f'"weight": {number}}}], "references": {{"default": {{"answer": "x"}}}}}}}}}}')
    code = judge(server, tmp_path, str(tmp_path / "in"), "--scoring-mode", "reference",
                 "--reference-registry-path", str(registry), "--reference-rubric", "r")
    assert code == 2
    err = one_line_error(capsys)  # too long to read: its place in the text; read exactly, too big a weight: its field
    assert str(registry) in err and ("line 1, column" in err or "criterion 'a' weight must be a positive finite" in err)
    assert server.count == 0


@pytest.mark.parametrize("make_output", [
    lambda tmp: (tmp / "taken").write_text("x") and tmp / "taken",
    lambda tmp: (tmp / "file").write_text("x") and tmp / "file" / "run",
])
def test_an_unusable_output_is_refused_before_any_judge_call(
        server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], make_output) -> None:
    write(tmp_path / "in/a.json", trajectory("task", "SCORE:0.9"))
    assert judge(server, tmp_path, str(tmp_path / "in"), *BENCHMARK, output=make_output(tmp_path)) == 4
    one_line_error(capsys)
    assert server.count == 0


def test_an_output_inside_the_input_folder_is_refused(server: ScriptedJudgeServer, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "in/a.json", trajectory("task", "SCORE:0.9"))
    assert judge(server, tmp_path, str(tmp_path / "in"), *BENCHMARK, output=tmp_path / "in" / "run") == 2
    one_line_error(capsys)
    assert server.count == 0 and not (tmp_path / "in" / "run").exists()


def test_an_output_that_is_a_symlink_out_of_the_tree_is_not_followed_into_the_inputs(
        server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "in/a.json", trajectory("task", "SCORE:0.9"))
    (tmp_path / "link").symlink_to(tmp_path / "in")
    assert judge(server, tmp_path, str(tmp_path / "in"), *BENCHMARK, output=tmp_path / "link" / "run") == 2
    one_line_error(capsys)
    assert server.count == 0


@pytest.mark.parametrize("option", ["--max-judge-requests", "--judge-max-tokens", "--judge-seed", "--max-total-steps",
                                    "--max-trajectory-files", "--max-file-bytes", "--num-examples"])
def test_a_huge_integer_option_is_a_one_line_error_before_any_call(
        server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str) -> None:
    write(tmp_path / "in/a.json", trajectory("task", "SCORE:0.9"))
    assert judge(server, tmp_path, str(tmp_path / "in"), *BENCHMARK, option, str(9 * 10**30)) == 2
    assert option.lstrip("-").replace("-", "_") in one_line_error(capsys)
    assert server.count == 0


@pytest.mark.parametrize("depth", [300, 1000])
def test_deep_nesting_is_an_input_problem_for_the_judge(server: ScriptedJudgeServer, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str], depth: int) -> None:
    """Issue 23 item 5: 256 to 1,024 levels ended in orjson's "Recursion limit reached" traceback."""
    document = trajectory("task", "SCORE:0.9")
    document["agent"]["extra"] = "DEEP"
    (tmp_path / "in").mkdir()
    (tmp_path / "in/a.json").write_bytes(orjson.dumps(document).replace(b'"DEEP"', b"[" * depth + b"]" * depth))
    assert judge(server, tmp_path, str(tmp_path / "in"), *BENCHMARK) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert server.count == 0


def test_credentials_in_the_judge_url_beside_a_key_variable_are_refused_up_front(
        server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23 item 7: before, every step ended not_run and the job said completed, exit 0, nothing sent."""
    monkeypatch.setenv("CANARY_KEY", "sk-canary")
    write(tmp_path / "in/a.json", trajectory("task", "SCORE:0.9"))
    url = server.base_url.replace("http://", "http://user:secret-pw@")
    code = run_app(app, ["judge", "--judge-url", url, "--judge-model", "scripted", "--quiet",
                         "--judge-api-key-env", "CANARY_KEY", "-o", str(tmp_path / "run"),
                         "--cache", str(tmp_path / "cache.sqlite3"), str(tmp_path / "in"), *BENCHMARK])
    assert code == 2
    err = one_line_error(capsys)
    assert "holds credentials" in err and "secret-pw" not in err and "sk-canary" not in err
    assert server.count == 0
