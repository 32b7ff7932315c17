from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.atif.scripted import marker_rule, trajectory, write
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.runs import read_manifest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "atif"


@pytest.fixture
def server() -> Iterator[ScriptedJudgeServer]:
    with ScriptedJudgeServer(marker_rule) as running:
        yield running


def judge(server: ScriptedJudgeServer, tmp_path: Path, *args: str) -> int:
    base = [
        "judge",
        "--judge-url",
        server.base_url,
        "--judge-model",
        "scripted",
        "-o",
        str(tmp_path / "run"),
        "--cache",
        str(tmp_path / "cache.sqlite3"),
        "--quiet",
    ]
    return run_app(app, [*base, *args])


def test_judge_examples_writes_run_folder_and_resumes_from_cache(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    assert judge(server, tmp_path, str(EXAMPLES)) == 0
    names = sorted(p.name for p in (tmp_path / "run").iterdir())
    assert names == ["evaluation_results.json", "manifest.json", "report.html", "steps.parquet", "summary.json"]
    assert read_manifest(tmp_path / "run")["status"] == "completed"
    summary = orjson.loads((tmp_path / "run/summary.json").read_bytes())
    assert summary["job_status"] == "completed" and summary["atif_trajectory_count"] == 4
    calls = server.count
    assert judge(server, tmp_path, str(EXAMPLES)) == 0
    assert server.count == calls  # unchanged inputs: zero judge calls


def test_a_run_of_another_job_in_the_output_folder_is_refused_unless_overwrite(
    server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert judge(server, tmp_path, str(EXAMPLES)) == 0
    first = read_manifest(tmp_path / "run")["job_id"]
    assert judge(server, tmp_path, str(EXAMPLES)) == 0  # the same job again: a resume, nothing to say
    assert "note:" not in capsys.readouterr().err
    assert judge(server, tmp_path, str(EXAMPLES), "--failure-threshold", "0.4") == 2
    assert (f"error: {tmp_path / 'run'}/ is not empty: it holds the run of job {first}; give another output "
            "folder, or --overwrite to write into it") in capsys.readouterr().err
    assert read_manifest(tmp_path / "run")["job_id"] == first
    assert judge(server, tmp_path, str(EXAMPLES), "--failure-threshold", "0.4", "--overwrite") == 0
    assert f"holds the run of job {first}; this run (job " in capsys.readouterr().err
    assert read_manifest(tmp_path / "run")["job_id"] != first


def test_fail_under_exits_1(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    write(tmp_path / "in/a.json", trajectory("SCORE:0.3"))
    assert (
        judge(
            server,
            tmp_path,
            str(tmp_path / "in"),
            "--scoring-mode",
            "benchmark",
            "--benchmark-name",
            "humanevalfix",
            "--fail-under",
            "0.5",
        )
        == 1
    )
    assert (
        judge(
            server,
            tmp_path,
            str(tmp_path / "in"),
            "--scoring-mode",
            "benchmark",
            "--benchmark-name",
            "humanevalfix",
            "--fail-under",
            "0.3",
        )
        == 0
    )


@pytest.mark.parametrize(("marker", "bound", "message"), [
    ("SCORE:0.123456789", "0.5", "collection score 0.1235 is below --fail-under 0.5"),
    ("SCORE:0.69999", "0.7", "collection score 0.69999 is below --fail-under 0.70000"),
])
def test_fail_under_says_the_score_rounded_as_in_the_table(server: ScriptedJudgeServer, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str], marker: str,
                                                           bound: str, message: str) -> None:
    write(tmp_path / "in/a.json", trajectory(marker))
    assert judge(server, tmp_path, str(tmp_path / "in"), "--scoring-mode", "benchmark", "--benchmark-name",
                 "humanevalfix", "--fail-under", bound) == 1
    assert capsys.readouterr().err.splitlines()[-1] == f"error: {message}"


def test_failed_job_exits_4_and_still_writes_results(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    write(tmp_path / "in/a.json", trajectory("FAIL"))
    assert judge(server, tmp_path, str(tmp_path / "in")) == 4
    summary = orjson.loads((tmp_path / "run/summary.json").read_bytes())
    assert summary["job_status"] == "failed"


def test_bad_parameter_exits_2_before_any_call(
    server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert judge(server, tmp_path, str(EXAMPLES), "--completion-threshold", "7") == 2
    assert "completion_threshold" in capsys.readouterr().err
    assert judge(server, tmp_path, str(EXAMPLES), "--scoring-mode", "benchmark", "--benchmark-name", "nope") == 2
    assert server.count == 0


def test_missing_judge_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["judge", str(EXAMPLES), "-o", str(tmp_path / "run")]) == 2
    assert "--judge-url" in capsys.readouterr().err


def test_invalid_input_exits_2_with_location(
    server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.json").write_text('{"steps": [}')
    assert judge(server, tmp_path, str(tmp_path / "bad.json")) == 2
    assert "bad.json:1:" in capsys.readouterr().err


def test_tolerant_run_reports_incomplete(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    write(tmp_path / "in/a.json", trajectory("SCORE:0.9"))
    (tmp_path / "in/bad.json").write_text("{")
    assert judge(server, tmp_path, str(tmp_path / "in"), "--tolerant") == 0
    results = orjson.loads((tmp_path / "run/evaluation_results.json").read_bytes())
    assert results["parameters"]["atif_complete"] is False
    assert [i["status"] for i in results["inputs"]] == ["loaded", "invalid"]


def test_shards_of_one_command_share_a_job_id_and_merge(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    base = [
        "judge",
        str(EXAMPLES),
        "--judge-url",
        server.base_url,
        "--judge-model",
        "scripted",
        "--quiet",
        "--cache",
        str(tmp_path / "cache.sqlite3"),
    ]
    assert run_app(app, [*base, "-o", str(tmp_path / "whole")]) == 0
    for i in range(2):
        assert run_app(app, [*base, "--shard", f"{i}/2", "-o", str(tmp_path / f"shard-{i}")]) == 0
    assert (
        run_app(app, ["merge", str(tmp_path / "shard-0"), str(tmp_path / "shard-1"), "-o", str(tmp_path / "merged")])
        == 0
    )
    whole = orjson.loads((tmp_path / "whole/evaluation_results.json").read_bytes())
    merged = orjson.loads((tmp_path / "merged/evaluation_results.json").read_bytes())
    assert merged["nodes"] == whole["nodes"]
    assert merged["parameters"]["trajectory_path"] == str(EXAMPLES)


def test_mlflow_flag_logs_the_run(
    server: ScriptedJudgeServer, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'mlruns.db'}"
    assert judge(server, tmp_path, str(EXAMPLES), "--mlflow", "--mlflow-uri", uri) == 0
    assert " INFO " not in capfd.readouterr().err  # MLflow's store set-up stays out of the terminal
    client = MlflowClient(uri)
    (run,) = client.search_runs([client.get_experiment_by_name("tracegrade").experiment_id])
    assert run.data.params["atif_prompt_version"] == "atif-context-v4"
    assert run.data.params["atif_scored_frames"] == "all"
    assert run.data.metrics["atif_overall_score"] == pytest.approx(0.9)
    names = {a.path for a in client.list_artifacts(run.info.run_id, "atif")}
    assert {"atif/evaluation_results.json", "atif/steps.parquet", "atif/report.html"} <= names


def test_api_key_never_reaches_outputs_logs_or_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str],
                                                     caplog: pytest.LogCaptureFixture) -> None:
    from tracegrade.judge.testing import ScriptedReply

    secret = "sk-test-SECRET-4f9a1c"
    monkeypatch.setenv("TG_TEST_KEY", secret)
    write(tmp_path / "in/a.json", trajectory("SCORE:0.2", "SCORE:0.9"))
    write(tmp_path / "in/b.json", trajectory("SCORE:0.1"))
    write(tmp_path / "in/c.json", trajectory("SCORE:0.3"))
    with ScriptedJudgeServer(marker_rule) as server:
        server.queue(ScriptedReply.error(401), ScriptedReply.error(500))
        code = run_app(app, ["judge", str(tmp_path / "in"), "--judge-url", server.base_url, "--judge-model", "m",
                             "--judge-api-key-env", "TG_TEST_KEY", "-o", str(tmp_path / "run"),
                             "--cache", str(tmp_path / "cache.sqlite3"), "--judge-max-attempts", "1",
                             "--partial-result-policy", "skip_failed_trajectory", "--scoring-mode", "benchmark",
                             "--benchmark-name", "terminal-bench"])
        headers = [r.headers.get("authorization") for r in server.requests]
    assert code == 1 and f"Bearer {secret}" in headers  # the key was used (two roots failed: exit 1)...
    captured = capsys.readouterr()
    texts = [captured.out, captured.err, caplog.text]
    texts += [p.read_bytes().decode("latin-1") for p in tmp_path.rglob("*") if p.is_file() and "in" not in p.parts]
    assert all(secret not in text for text in texts)  # ...and written nowhere


def test_judge_local_without_the_extra_exits_3_naming_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "xllamacpp" else real(name, *a))
    code = run_app(app, ["judge", str(EXAMPLES), "--judge", "local", "--no-cache", "-o", str(tmp_path / "run")])
    assert code == 3
    err = capsys.readouterr().err
    assert "xllamacpp" in err and "pip install 'tracegrade[local-judge]'" in err and err.count("\n") == 1


def test_an_empty_shard_exits_0_with_zero_roots(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    write(tmp_path / "in/a.json", trajectory("SCORE:0.9"))
    codes = [judge(server, tmp_path / f"s{i}", str(tmp_path / "in"), "--shard", f"{i}/3") for i in range(3)]
    assert codes == [0, 0, 0]
    summaries = [orjson.loads((tmp_path / f"s{i}/run/summary.json").read_bytes()) for i in range(3)]
    assert sorted(s["counts"]["roots"] for s in summaries) == [0, 0, 1]
    assert all(s["job_status"] == "completed" for s in summaries)
    merged = tmp_path / "merged"
    assert run_app(app, ["merge", *(str(tmp_path / f"s{i}/run") for i in range(3)), "-o", str(merged)]) == 0
    assert orjson.loads((merged / "summary.json").read_bytes())["counts"]["roots"] == 1


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_exits_130_with_the_finished_results_written(tmp_path: Path, signum: signal.Signals) -> None:
    with ScriptedJudgeServer(marker_rule, latency=0.3) as slow:
        command = [
            str(Path(sys.executable).parent / "tracegrade"), "judge", str(EXAMPLES), "--judge-url", slow.base_url,
            "--judge-model", "scripted", "--concurrency-limit", "1", "--no-cache", "--quiet",
            "-o", str(tmp_path / "run"),
            "--scoring-mode", "benchmark", "--benchmark-name", "terminal-bench",
        ]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while slow.count < 3 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert read_manifest(tmp_path / "run")["status"] == "interrupted"
    results = orjson.loads((tmp_path / "run/evaluation_results.json").read_bytes())
    statuses = [s["status"] for n in results["nodes"] for s in n["steps"]]
    assert results["summary"]["job_status"] == "interrupted"
    assert statuses.count("scored") >= 2 and "not_run" in statuses  # what finished is kept, the rest is marked
    scored, total = statuses.count("scored"), len([s for s in statuses if s != "copied_context"])
    assert err.decode().splitlines() == [  # one line, no traceback
        f"interrupted: kept {scored} of {total} steps scored in {tmp_path / 'run'}/ (job status interrupted); "
        "a rerun pays every judge call again (--no-cache)"]


def test_skip_failed_trajectory_keeps_going_and_exits_1_naming_the_failed_roots(
    server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "in/a.json", trajectory("FAIL"))
    write(tmp_path / "in/b.json", trajectory("SCORE:0.8"))
    write(tmp_path / "in/c.json", trajectory("SCORE:0.6"))
    policy = ("--partial-result-policy", "skip_failed_trajectory", "--judge-max-attempts", "1")
    assert judge(server, tmp_path, str(tmp_path / "in"), *policy) == 1
    summary = orjson.loads((tmp_path / "run/summary.json").read_bytes())
    assert summary["job_status"] == "completed" and summary["atif_trajectory_count"] == 2
    assert summary["counts"]["roots"] == 3 and summary["counts"]["roots_failed"] == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1 of 3 root trajectories failed" in err
    (tmp_path / "in/a.json").unlink()
    assert judge(server, tmp_path, str(tmp_path / "in"), *policy) == 0  # no failed root: exit 0
    assert "roots_failed" not in orjson.loads((tmp_path / "run/summary.json").read_bytes())["counts"]


def test_an_unreachable_judge_is_one_line_naming_it_and_no_rate_is_claimed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on once the socket is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    write(tmp_path / "in/a.json", trajectory("SCORE:0.2"))
    code = run_app(app, ["judge", str(tmp_path / "in"), "--judge-url", f"http://127.0.0.1:{port}/v1",
                         "--judge-model", "m", "-o", str(tmp_path / "run"), "--no-cache",
                         "--judge-max-attempts", "1"])
    assert code == 4
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.startswith("error:")]
    assert lines == [f"error: judge http://127.0.0.1:{port}/v1 unreachable "
                     "(transport_error: the connection was refused, reset or cut)"]
    assert "job failed: fail_fast: node" in captured.out  # the whole reason, not a cell cut at the width
    for document in (orjson.loads((tmp_path / "run/summary.json").read_bytes()),
                     orjson.loads((tmp_path / "run/evaluation_results.json").read_bytes())["summary"]):
        assert document["atif_failure_categorization_rate"] is None
        assert document["null_reasons"] == {
            "atif_failure_categorization_rate": "no step was scored, so no failure could be detected"
        }
    page = (tmp_path / "run/report.html").read_text()
    assert "none: no step was scored, so no failure could be detected" in page and "100.0" not in page


def test_data_is_printed_without_rich_highlighting(
    server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    out = tmp_path / "run-80"
    argv = ["judge", str(EXAMPLES), "--judge-url", server.base_url, "--judge-model", "scripted", "-o", str(out),
            "--cache", str(tmp_path / "cache.sqlite3")]
    assert run_app(app, argv) == 0
    printed = capsys.readouterr().out
    assert f"results: {out}/ (" in printed  # no colour codes around the digits or slashes of the path
    assert "│ atif_trajectory_count" in printed and "4 │" in printed


def _judge_against(url: str, tmp_path: Path, out: str, *args: str) -> int:
    return run_app(app, ["judge", str(EXAMPLES), "--judge-url", url, "--judge-model", "scripted", "-o",
                         str(tmp_path / out), "--cache", str(tmp_path / "cache.sqlite3"), "--quiet",
                         "--judge-max-attempts", "1", *args])


def _judge_provenance(run: Path) -> dict[str, object]:
    provenance: dict[str, object] = orjson.loads((run / "evaluation_results.json").read_bytes())["provenance"]["judge"]
    return provenance


def test_another_endpoint_serving_the_same_model_name_makes_its_own_requests(tmp_path: Path) -> None:
    from tracegrade.judge import endpoint_identity

    with ScriptedJudgeServer(marker_rule) as first, ScriptedJudgeServer(marker_rule) as second:
        assert _judge_against(first.base_url, tmp_path, "a") == 0
        asked = first.count
        assert _judge_against(second.base_url, tmp_path, "b") == 0
        assert second.count == asked and first.count == asked  # before: 0 requests, the first server's scores
        assert _judge_against(first.base_url, tmp_path, "again") == 0
        assert first.count == asked  # every answer cached: the run still names the endpoint that gave them
        assert _judge_provenance(tmp_path / "again")["endpoint"] == endpoint_identity(first.base_url)
        assert _judge_provenance(tmp_path / "b")["endpoint"] == endpoint_identity(second.base_url)
    with ScriptedJudgeServer(marker_rule) as gone:
        closed = gone.base_url
    assert _judge_against(closed, tmp_path, "closed") == 4  # a closed port is asked, not answered from the cache


def test_sharing_the_cache_across_endpoints_is_asked_for_and_recorded(tmp_path: Path) -> None:
    shared = "--judge-cache-shared-across-endpoints"
    with ScriptedJudgeServer(marker_rule) as first, ScriptedJudgeServer(marker_rule) as second:
        assert _judge_against(first.base_url, tmp_path, "a", shared) == 0
        assert _judge_against(second.base_url, tmp_path, "b", shared) == 0
        assert second.count == 0
    recorded = _judge_provenance(tmp_path / "b")
    assert recorded["cache_shared_across_endpoints"] is True and "http://127.0.0.1:" in str(recorded["endpoint"])


def test_a_second_judge_run_into_a_folder_being_written_exits_2_naming_the_holder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedJudgeServer(marker_rule, latency=0.3) as slow:
        command = [
            str(Path(sys.executable).parent / "tracegrade"), "judge", str(EXAMPLES), "--judge-url", slow.base_url,
            "--judge-model", "scripted", "--concurrency-limit", "1", "--no-cache", "--quiet",
            "-o", str(tmp_path / "run"), "--scoring-mode", "benchmark", "--benchmark-name", "terminal-bench",
        ]
        first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while slow.count < 1 and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.05)
        with ScriptedJudgeServer(marker_rule) as other:
            code = run_app(app, ["judge", str(EXAMPLES), "--judge-url", other.base_url, "--judge-model", "scripted",
                                 "--no-cache", "--quiet", "-o", str(tmp_path / "run")])
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    err = capsys.readouterr().err
    assert code == 2 and other.count == 0, err  # refused before its first judge call
    assert err.startswith(f"error: {(tmp_path / 'run').resolve()}: another tracegrade job is writing there "
                          f"(pid {first.pid}, atif-judge job ") and len(err.splitlines()) == 1
    assert read_manifest(tmp_path / "run")["status"] == "interrupted"  # the first run's results are its own


_FULL_DISK = """
import resource, signal, sys
from tracegrade.cli import main
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as on a full disk
limit = int(sys.argv.pop(1))
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
sys.argv[0] = "tracegrade"
main()
"""


@pytest.mark.parametrize("limit", [1000, 20_000])
def test_a_full_disk_while_judging_is_one_line_and_exit_4(server: ScriptedJudgeServer, tmp_path: Path,
                                                          limit: int) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, str(limit), "judge", str(EXAMPLES), "--judge-url", server.base_url,
         "--judge-model", "scripted", "--no-cache", "-q", "-o", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 4, run.stderr  # before: the spool's OSError as a traceback, exit 1
    assert run.stderr.splitlines() == [
        f"error: {tmp_path / 'run'}: cannot keep the finished results while scoring (File too large; is the disk "
        "full?)"]


def _taskless(*messages: str) -> dict[str, object]:
    """An ATIF file as an OpenTelemetry import leaves it when no attribute held the task: a system prompt and agent
    steps, no user step, no extra.task_instruction."""
    steps = [{"step_id": 1, "source": "system", "message": "You are a helpful agent."}]
    steps += [{"step_id": i, "source": "agent", "message": m, "model_name": "gpt-4o-mini"}
              for i, m in enumerate(messages, start=2)]
    return {"schema_version": "ATIF-v1.6", "session_id": "4bf92f3577b34da6a3ce929d0e0e4736",
            "agent": {"name": "otel-import", "version": "unknown"}, "steps": steps, "extra": {"otel": {"spans": 3}}}


def test_roots_without_a_task_stop_auto_mode_before_any_judge_call_naming_each(
    server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "in/a.json", trajectory("task a", "SCORE:0.8"))
    write(tmp_path / "in/b.json", _taskless("SCORE:0.7", "SCORE:0.6"))
    write(tmp_path / "in/c.json", trajectory("task c", "SCORE:0.9"))
    write(tmp_path / "in/d.json", _taskless("SCORE:0.5"))
    assert judge(server, tmp_path, str(tmp_path / "in")) == 2  # before: the calls for a.json, then exit 4
    assert server.count == 0
    err = capsys.readouterr().err
    assert err.startswith("error: 2 of 4 trajectories have no task, so auto mode cannot derive their criteria "
                          "(no judge call was made): b.json, d.json.") and len(err.splitlines()) == 1
    skip = ("--partial-result-policy", "skip_failed_trajectory")
    assert judge(server, tmp_path, str(tmp_path / "in"), *skip) == 1  # the others are scored, these fail alone
    nodes = {n["node_id"]: n for n in orjson.loads((tmp_path / "run/evaluation_results.json").read_bytes())["nodes"]}
    assert nodes["b.json"]["status"] == "failed" and nodes["b.json"]["error_code"] == "task_unresolved"
    assert nodes["a.json"]["status"] == nodes["c.json"]["status"] == "scored"
    custom = ("--scoring-mode", "benchmark", "--benchmark-name", "terminal-bench", "--overwrite")
    assert judge(server, tmp_path, str(tmp_path / "in"), *custom) == 0  # a fixed rubric needs no task


def test_each_refused_input_is_named_whole_on_its_own_line(
    server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    write(tmp_path / "in/good.json", trajectory("task a", "SCORE:0.8"))
    bad = tmp_path / "in/a-rather-long-folder-name-for-one-batch/trajectory-with-a-long-descriptive-name-0001.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"schema_version": "ATIF-v1.6", "agent": {"name": "a", "version": "1"}, '
                   '"steps": [{"step_id": 1, "source": "user", "message": 42}]}')
    code = run_app(app, ["judge", str(tmp_path / "in"), "--judge-url", server.base_url, "--judge-model", "scripted",
                         "--no-cache", "--tolerant", "-o", str(tmp_path / "run")])
    assert code == 0
    out = capsys.readouterr().out
    assert f"invalid: {bad}: /steps/0/message: Input should be a valid string or a valid list\n" in out


def test_a_judge_host_that_does_not_resolve_is_named_as_such(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "in/a.json", trajectory("SCORE:0.2"))
    code = run_app(app, ["judge", str(tmp_path / "in"), "--judge-url", "http://judge.no-such-host.invalid:8000/v1",
                         "--judge-model", "m", "-o", str(tmp_path / "run"), "--no-cache",
                         "--judge-max-attempts", "1", "--judge-timeout-seconds", "20"])
    assert code == 4
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert lines == ["error: judge http://judge.no-such-host.invalid:8000/v1 unreachable "
                     "(dns_error: its host name does not resolve)"]


def test_a_cached_rerun_reports_what_the_cached_answers_cost(server: ScriptedJudgeServer, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert judge(server, tmp_path, str(EXAMPLES), "-o", str(tmp_path / "first")) == 0
    bought = orjson.loads((tmp_path / "first/summary.json").read_bytes())["judge"]
    assert bought["input_tokens"] > 0 and bought["output_tokens"] > 0
    capsys.readouterr()
    run_app(app, ["judge", str(EXAMPLES), "--judge-url", server.base_url, "--judge-model", "scripted",
                  "-o", str(tmp_path / "second"), "--cache", str(tmp_path / "cache.sqlite3")])
    again = orjson.loads((tmp_path / "second/summary.json").read_bytes())["judge"]
    assert (again["input_tokens"], again["output_tokens"], again["cache_hits"]) == (0, 0, bought["requests"])
    assert (again["cache_hit_input_tokens"], again["cache_hit_output_tokens"]) == (bought["input_tokens"],
                                                                           bought["output_tokens"])
    shown = f"0 / 0 (+ cached {bought['input_tokens']:,} / {bought['output_tokens']:,})"
    assert shown in capsys.readouterr().out


def test_several_bad_files_are_all_named_then_counted_and_tolerant_scores_the_rest(
        server: ScriptedJudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "in/good.json", trajectory("SCORE:0.8"))
    for i in range(12):
        (tmp_path / f"in/bad-{i:02}.json").write_text("{ nope")
    assert judge(server, tmp_path, str(tmp_path / "in")) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("error: 12 of 13 input files are invalid, so none was scored (--tolerant scores the valid "
                      "ones and records these):")
    assert [line.split(":")[0].strip() for line in err[1:11]] == [str(tmp_path / f"in/bad-{i:02}.json")
                                                                  for i in range(10)]
    assert err[11:] == ["  ... and 2 more"]
    assert run_app(app, ["judge", str(tmp_path / "in"), "--tolerant", "--judge-url", server.base_url,
                         "--judge-model", "m", "-o", str(tmp_path / "tolerant"), "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "refused 12 of 13 inputs as invalid (--tolerant scored the rest):" in out
    assert "  ... and 2 more (every input's account: evaluation_results.json)" in out


def test_every_way_a_job_ends_has_its_documented_exit_code() -> None:
    from tracegrade.atif import JobOutcome
    from tracegrade.errors import outcome_exit_code
    from tracegrade.runs import JobStatus

    assert {outcome.value: int(outcome_exit_code(outcome)) for outcome in JobOutcome} == {
        "passed": 0, "roots_failed": 1, "below_threshold": 1, "interrupted": 130, "invalid_input": 2, "failed": 4,
    }
    assert {status.value: int(outcome_exit_code(status)) for status in JobStatus} == {
        "completed": 0, "failed": 4, "interrupted": 130}
