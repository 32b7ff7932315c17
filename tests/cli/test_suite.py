from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracegrade.cli._app import app, run_app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "suites"
DATASET = str(EXAMPLE / "dataset.json")
SUT = f"{sys.executable} {EXAMPLE / 'sut.py'}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = run_app(app, ["suite", *argv])
    captured = capsys.readouterr()
    return code, orjson.loads(captured.out) if captured.out.strip() else None, captured.err


def test_check_reports_a_valid_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", DATASET)
    assert code == 0 and out == {"dataset": DATASET, "valid": True, "problems": 0, "suites": 2, "cases": 7,
                                 "expectations": 21}


def test_check_names_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = {"name": "d", "revision": "1", "suites": [{"name": "s", "workflow": "w", "cases": [
        {"id": "a", "input": {"payload": 1}, "expectations": [{"name": "x", "path": "no-slash", "expected": 1,
                                                               "comparison": "fuzzy"}]}]}]}
    (tmp_path / "d.json").write_text(json.dumps(bad))
    code, out, err = run(capsys, "check", str(tmp_path / "d.json"))
    assert code == 2 and out["problems"] == 2
    assert f"{tmp_path}/d.json: /suites/0/cases/0/expectations/0/path: not an RFC 6901 JSON pointer" in err
    assert "/suites/0/cases/0/expectations/0/comparison: unknown comparison 'fuzzy'" in err


def test_run_replay_and_compare_the_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, html = tmp_path / "report.json", tmp_path / "report.html"
    code, out, _ = run(capsys, "run", DATASET, "--target-cmd", SUT, "-o", str(report), "--html", str(html),
                       "--repeat", "2", "--concurrency-limit", "4")
    assert code == 4  # the provider-down case fails operationally
    pipeline = out["suites"][0]
    assert pipeline["checks"] == {"total": 38, "passed": 30, "failed": 4, "missing": 0, "skipped": 2, "errors": 2}
    assert (pipeline["failure_rate"], pipeline["review_rate"], pipeline["case_pass_rate"]) == (0.2, 0.2, 0.4)
    assert "double-charge" not in json.dumps(out)
    assert stat.S_IMODE(report.stat().st_mode) == 0o600 and stat.S_IMODE(html.stat().st_mode) == 0o600
    assert not (tmp_path / "report.json.checkpoint.jsonl").exists()
    saved = json.loads(report.read_text())
    decisions = saved["suites"][0]["decisions"]
    assert decisions == [{"flow": "triage", "step": "classify", "decision_invocations": 8,
                          "model_selected_invocations": 6, "fallback_selected_invocations": 2, "fallback_rate": 0.25}]
    assert saved["suites"][0]["metrics"][0]["accuracy"] == 0.6

    code, out, err = run(capsys, "run", DATASET, "--target-cmd", SUT, "-o", str(report))
    assert code == 2 and "already exists" in err

    code, out, _ = run(capsys, "replay", str(report), "-d", DATASET, "-o", str(tmp_path / "replay.json"))
    assert code == 4 and out["mode"] == "replay" and out["suites"][0]["checks"]["passed"] == 30

    code, out, err = run(capsys, "compare", str(tmp_path / "replay.json"), "--baseline", str(report),
                         "-o", str(tmp_path / "cmp.json"), "--json")
    assert code == 0 and out["suites"][0]["changes"]["unchanged"] == 10
    assert err == "note: `compare CANDIDATE --baseline B` is deprecated; write `compare B CANDIDATE`\n"
    code, out, err = run(capsys, "compare", str(report), str(tmp_path / "replay.json"), "--fail-on-regression",
                         "--fail-on-new-failures", "--json")
    assert code == 0 and out["mean_delta"] == 0.0 and out["n"] == 7
    assert err.startswith("gate: warning: only 7 scored pair(s) (95% interval [+0.0%, +0.0%])")  # as the table
    assert out["gate"]["fired"] == [] and len(out["gate"]["warnings"]) == 1
    code, _, err = run(capsys, "compare", str(report), str(report), "--baseline", str(report))
    assert code == 2 and "not both" in err


def test_recorded_results_and_exit_1_on_gold_disagreement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"suite": "classify_step", "id": "step-refund", "result": {"flows": {
        "triage": {"status": "completed", "steps": {"classify": {"status": "completed", "result": {
            "answer": {"optionId": "cancellation"}}}}}}}}) + "\n")
    dataset = tmp_path / "d.json"
    data = json.loads(Path(DATASET).read_text())
    data["suites"] = [data["suites"][1]]
    data["suites"][0]["cases"] = data["suites"][0]["cases"][:1]
    dataset.write_text(json.dumps(data))
    code, out, _ = run(capsys, "run", str(dataset), "--results", str(results), "-o", str(tmp_path / "r.json"))
    assert code == 1 and out["suites"][0]["checks"]["failed"] == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["--results", "x.jsonl", "--target-cmd", "true"], "exactly one of --results, --target-cmd and --target-url"),
    (["--target-cmd", "true", "--repeat", "0"], "--repeat"),
    (["--target-cmd", "true", "--timeout", "-1"], "--timeout"),
    (["--target-url", "ftp://x"], "--target-url must be an http(s) URL"),
])
def test_invalid_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                  message: str) -> None:
    code, _, err = run(capsys, "run", DATASET, "-o", str(tmp_path / "r.json"), *argv)
    assert code == 2 and message in err
    assert not (tmp_path / "r.json").exists()


def test_max_concurrency_is_a_hidden_deprecated_name_of_the_concurrency_limit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = str(EXAMPLE / "results.jsonl")
    code, out, err = run(capsys, "run", DATASET, "--results", results, "-o", str(tmp_path / "r.json"),
                         "--max-concurrency", "3")
    assert code == 4 and out["suites"][0]["checks"]["total"] == 19
    assert err.splitlines() == ["warning: --max-concurrency is deprecated; use --concurrency-limit"]
    assert json.loads((tmp_path / "r.json").read_text())["parameters"]["concurrency_limit"] == 3
    code, _, err = run(capsys, "run", DATASET, "--results", results, "-o", str(tmp_path / "b.json"),
                       "--max-concurrency", "3", "--concurrency-limit", "2")
    assert code == 2 and "give --concurrency-limit only" in err and not (tmp_path / "b.json").exists()
    assert run_app(app, ["suite", "run", "--help"]) == 0
    help_text = capsys.readouterr().out
    assert "--concurrency-limit" in help_text and "--max-concurrency" not in help_text


def test_judge_checks_need_a_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = {"name": "d", "revision": "1", "suites": [{"name": "s", "workflow": "w", "cases": [
        {"id": "a", "input": {"payload": 1}, "expectations": [
            {"name": "x", "path": "/reply", "expected": {"rubric": "polite"}, "comparison": "judge"}]}]}]}
    (tmp_path / "d.json").write_text(json.dumps(data))
    code, _, err = run(capsys, "run", str(tmp_path / "d.json"), "--target-cmd", "true", "-o", str(tmp_path / "r"))
    assert code == 2 and "--judge-url and --judge-model" in err


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGINT"])
def test_a_stop_signal_exits_130_saying_what_was_kept_and_the_rerun_resumes(tmp_path: Path, signum: str) -> None:
    import os
    import signal
    import subprocess
    import time

    slow, log = tmp_path / "slow", tmp_path / "calls.log"
    slow.touch()
    sut = tmp_path / "sut.py"
    sut.write_text(
        "import json, os, sys, time\nrequest = json.load(sys.stdin)\n"
        f"open({str(log)!r}, 'a').write(request['case_id'] + '\\n')\n"
        f"if os.path.exists({str(slow)!r}) and request['case_id'] != 'c0':\n    time.sleep(30)\n"
        "print(json.dumps({'v': request['payload']}))\n")
    cases = [{"id": f"c{i}", "input": {"payload": i}, "expectations": [{"name": "v", "path": "/v", "expected": i}]}
             for i in range(3)]
    (tmp_path / "d.json").write_text(json.dumps({"name": "d", "revision": "1", "suites": [
        {"name": "s", "workflow": "w", "cases": cases}]}))
    argv = [sys.executable, "-c", "from tracegrade.cli import main; main()", "suite", "run", str(tmp_path / "d.json"),
            "--target-cmd", f"{sys.executable} {sut}", "-o", str(tmp_path / "r.json"), "--concurrency-limit", "1"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    checkpoint = tmp_path / "r.json.checkpoint.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not checkpoint.exists() or len(checkpoint.read_bytes().splitlines()) < 2):
        time.sleep(0.1)
    time.sleep(0.3)
    os.kill(process.pid, getattr(signal, signum))
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert err.decode().splitlines() == [
        f"interrupted: kept 1 finished attempt in {checkpoint}; the same command again resumes from it"]
    assert not (tmp_path / "r.json").exists() and checkpoint.exists()
    slow.unlink()
    done = subprocess.run(argv, capture_output=True, timeout=60)
    assert done.returncode == 0
    assert log.read_text().split() == ["c0", "c1", "c1", "c2"]


def test_judge_checks_through_a_real_judge_endpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply

    def rule(request: ReceivedRequest) -> ScriptedReply:
        prompt = request.json()["messages"][-1]["content"]
        verdict = "pass" if "sorry" in prompt else "fail"
        return ScriptedReply(content=json.dumps({"verdict": verdict, "rationale": "checked"}))

    monkeypatch.setenv("TRACEGRADE_CACHE_DIR", str(tmp_path / "cache"))
    cases = [{"id": c, "input": {"payload": text}, "expectations": [
        {"name": "tone", "path": "/reply", "expected": {"rubric": "apologises"}, "comparison": "judge"}]}
        for c, text in (("a", "we are sorry"), ("b", "no"))]
    (tmp_path / "d.json").write_text(json.dumps({"name": "d", "revision": "1", "suites": [
        {"name": "s", "workflow": "w", "cases": cases}]}))
    sut = tmp_path / "sut.py"
    sut.write_text("import json, sys\nprint(json.dumps({'reply': json.load(sys.stdin)['payload']}))\n")
    with ScriptedJudgeServer(rule) as server:
        code, out, _ = run(capsys, "run", str(tmp_path / "d.json"), "--target-cmd", f"{sys.executable} {sut}",
                           "-o", str(tmp_path / "r.json"), "--judge-url", server.base_url, "--judge-model", "m")
    assert code == 1 and out["suites"][0]["checks"]["passed"] == 1 and out["suites"][0]["checks"]["failed"] == 1
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["suites"][0]["scorers"] == {"judge": "suite-check-v1:m"}


@pytest.mark.parametrize("results", [False, True])
def test_a_checkpoint_naming_an_unrelated_file_is_refused_and_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  results: bool) -> None:
    """Issue 23 item 6d: the run appended to the file, then deleted it at the end."""
    mine = tmp_path / "notes.txt"
    mine.write_text("my notes\n")
    target = ["--results", str(EXAMPLE / "results.jsonl")] if results else ["--target-cmd", SUT]
    code, _, err = run(capsys, "run", DATASET, *target, "--checkpoint", str(mine), "-o", str(tmp_path / "r.json"))
    assert code == 2 and f"{mine} is not a tracegrade checkpoint" in err and err.count("\n") == 1
    assert mine.read_text() == "my notes\n" and not (tmp_path / "r.json").exists()


def test_a_target_leaving_a_child_behind_is_read_or_timed_out_without_noise(tmp_path: Path) -> None:
    """Issue 23 item 8: answers dropped as ``timeout``, with "Event loop is closed" tracebacks and "Unknown child
    process pid" warnings on stderr."""
    answers = tmp_path / "answers.py"  # answers, exits, and leaves a child holding stdout
    answers.write_text("import json, os, sys, time\nrequest = json.load(sys.stdin)\n"
                       "print(json.dumps(request['payload']), flush=True)\n"
                       "if os.fork() == 0:\n    time.sleep(60)\nos._exit(0)\n")
    hangs = tmp_path / "hangs.sh"  # never answers; a child in its group holds stdout too
    hangs.write_text("#!/bin/sh\ncat > /dev/null\nsleep 60 &\nsleep 60\n")
    hangs.chmod(0o755)
    tool = Path(sys.executable).parent / "tracegrade"
    for name, command, codes in (("a", f"{sys.executable} {answers}", {None}), ("h", str(hangs), {"timeout"})):
        done = subprocess.run([tool, "suite", "run", DATASET, "--target-cmd", command, "--timeout", "2",
                               "-o", str(tmp_path / f"{name}.json")], capture_output=True, text=True, timeout=300)
        assert done.stderr == ""
        attempts = [a for s in json.loads((tmp_path / f"{name}.json").read_text())["suites"] for a in s["attempts"]]
        assert {a["error_code"] for a in attempts} == codes


def test_an_unwritable_report_folder_exits_4_before_any_attempt(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "run", DATASET, "--target-cmd", SUT, "-o", "/proc/no-such/r.json")
    assert code == 4 and out is None
    assert err == "error: /proc/no-such/r.json: not writable (no such file or directory)\n"


def test_a_missing_case_file_is_named_once_per_suite_where_the_manifest_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = json.loads((EXAMPLE / "dataset.json").read_text())
    first = manifest["suites"][0]
    manifest["suites"] = [{**first, "name": "triage"}, {**first, "name": "triage_again"},
                          {**first, "name": "other", "cases": "cases/other.json"}]
    (tmp_path / "dataset.json").write_text(json.dumps(manifest))  # no cases/ folder beside it
    code, out, err = run(capsys, "check", str(tmp_path / "dataset.json"))
    where = tmp_path / "dataset.json"
    assert code == 2 and out["problems"] == 3
    assert err.splitlines() == [  # before: "error: …/cases/pipeline.json: /: cannot read: …" twice, no suite named
        f"error: {where}: /suites/0/cases: suite 'triage': case file cases/pipeline.json: cannot read: no such file "
        "or directory",
        f"error: {where}: /suites/1/cases: suite 'triage_again': case file cases/pipeline.json: cannot read: no such "
        "file or directory",
        f"error: {where}: /suites/2/cases: suite 'other': case file cases/other.json: cannot read: no such file or "
        "directory",
    ]


def test_compare_prints_its_table_first_and_the_json_goes_to_its_file(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "recorded.json"
    run(capsys, "run", DATASET, "--results", str(Path(DATASET).parent / "results.jsonl"), "-o", str(report))
    code = run_app(app, ["suite", "compare", str(report), str(report), "-o", str(tmp_path / "cmp.json")])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("pipeline: 5 attempts: ")
    assert "{" not in out and "case_pass_rate: delta +0.0%" in out
    assert out.rstrip().endswith(f"-> {tmp_path / 'cmp.json'}")
    assert json.loads((tmp_path / "cmp.json").read_text())["format"] == "tracegrade.suite-compare/1"
    code, summary, _ = run(capsys, "compare", str(report), str(report), "--json")
    assert code == 0 and summary["format"] == "tracegrade.suite-compare/1" and summary["output"] is None
