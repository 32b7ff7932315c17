"""Batch mode against a loopback Batch API: the same results as online, honest failures, nothing paid twice."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.atif.scripted import CUSTOM, marker_rule, trajectory, write
from tests.judge.batch_server import BatchServer, Plan
from tracegrade.atif import JobContext, JudgeTarget, parse_parameters, run_atif_job
from tracegrade.atif._batch import BATCH_STATE_NAME, BatchOptions, BatchState, Exported, run_batch_job
from tracegrade.atif.output import open_run_folder
from tracegrade.errors import ConfigError
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer

REPO = Path(__file__).resolve().parents[2]
FAST = BatchOptions(poll_seconds=0.01)


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    write(folder / "a.json", trajectory("fix the bug", "SCORE:0.9 read the code", "SCORE:0.2 CAT:context_loss",
                                        "SCORE:0.8 done"))
    write(folder / "b.json", trajectory("write the report", "SCORE:0.3", "SCORE:0.95"))
    return folder


def job(inputs: Path, **extra: Any) -> tuple[Any, Any]:
    return parse_parameters({**CUSTOM, "trajectory_path": str(inputs), **extra})


def comparable(folder: Path) -> dict[str, Any]:
    document: dict[str, Any] = orjson.loads((folder / "evaluation_results.json").read_bytes())
    document.pop("created_at")
    document["summary"].pop("judge")  # counters: online requests here, cache hits and batch requests there
    document["provenance"]["judge"].pop("endpoint")  # the batch server and the online server listen apart
    return document


def batch_run(server: BatchServer, inputs: Path, out: Path, cache: Path, batch: BatchOptions = FAST,
              **extra: Any) -> Any:
    options, criteria = job(inputs, **extra)
    target = JudgeTarget(url=server.base_url, model="scripted-judge")
    folder = open_run_folder(out, "job-1")
    return asyncio.run(run_batch_job([inputs], options, criteria, target, JobContext("job-1"), folder=folder,
                                     cache_path=cache, batch=batch))


def test_a_batch_run_gives_an_online_runs_results_and_a_rerun_asks_nothing(inputs: Path, tmp_path: Path) -> None:
    with ScriptedJudgeServer(marker_rule) as online:
        options, criteria = job(inputs)
        target = JudgeTarget(url=online.base_url, model="scripted-judge")
        asyncio.run(run_atif_job([inputs], options, criteria, target, JobContext("job-1"),
                                 out_dir=open_run_folder(tmp_path / "online", "job-1"),
                                 cache_path=tmp_path / "online.sqlite3"))
        online_requests = online.count
    with BatchServer(marker_rule) as server:
        results, _ = batch_run(server, inputs, tmp_path / "batch", tmp_path / "batch.sqlite3")
        assert server.created == 2  # scores, then the categories of the low steps
        assert sum(server.paid.values()) == online_requests and max(server.paid.values()) == 1
        assert comparable(tmp_path / "batch") == comparable(tmp_path / "online")
        assert results.summary.judge["batch_requests"] == online_requests and results.summary.judge["requests"] == 0
        assert results.summary.counts["steps_scored"] == 7
        paid = dict(server.paid)
        batch_run(server, inputs, tmp_path / "again", tmp_path / "batch.sqlite3")  # every answer in the cache
        assert (server.created, dict(server.paid), server.online) == (2, paid, 0)
        assert comparable(tmp_path / "again") == comparable(tmp_path / "online")
        # the batch's cache serves an online run of the same endpoint: no request
        online_before = server.online
        options, criteria = job(inputs)
        asyncio.run(run_atif_job([inputs], options, criteria, JudgeTarget(url=server.base_url, model="scripted-judge"),
                                 JobContext("job-1"), out_dir=None, cache_path=tmp_path / "batch.sqlite3"))
        assert server.online == online_before


def test_an_expired_batchs_missing_lines_and_an_error_line_are_errors_never_scores(inputs: Path,
                                                                                 tmp_path: Path) -> None:
    write(inputs / "c.json", trajectory("crash it", "FAIL here"))  # answered with HTTP 400: an error line
    with BatchServer(marker_rule, [Plan("expired", answered=6)]) as server:
        results, _ = batch_run(server, inputs, tmp_path / "run", tmp_path / "cache.sqlite3",
                               partial_result_policy="skip_failed_trajectory")
        steps = [s for node in results.nodes for s in node.steps]
        codes = sorted(s.error_code for s in steps if s.error_code)
        assert len(steps) == 9 and results.summary.counts["steps_scored"] + len(codes) == 9
        assert codes.count("batch_expired") == 9 - 6 and set(codes) <= {"batch_expired", "http_status_400"}
        assert all(s.score is None for s in steps if s.error_code)
        state = BatchState.load(tmp_path / "run" / BATCH_STATE_NAME)
        assert set(state.failures.values()) == set(codes)
        created = server.created
        batch_run(server, inputs, tmp_path / "run", tmp_path / "cache.sqlite3",
                  partial_result_policy="skip_failed_trajectory")  # the same command: recorded, not sent again
        assert server.created == created and max(server.paid.values()) == 1


def test_the_online_fallback_sends_only_what_the_batch_did_not_answer(inputs: Path, tmp_path: Path) -> None:
    with BatchServer(marker_rule, [Plan("failed")]) as server:  # the whole batch fails validation
        results, _ = batch_run(server, inputs, tmp_path / "run", tmp_path / "cache.sqlite3",
                               BatchOptions(poll_seconds=0.01, fallback_online=True))
        assert server.online == 7 + 2 and not server.paid  # every score, then the two low steps' categories
        assert results.summary.counts["steps_scored"] == 7
        assert results.summary.judge["requests"] == 9


def test_a_round_exported_and_its_output_imported_finishes_the_job(inputs: Path, tmp_path: Path) -> None:
    exported = tmp_path / "round.jsonl"
    with BatchServer(marker_rule) as server:
        for round_number in range(3):
            imports = (tmp_path / "out.jsonl",) if round_number else ()
            outcome = batch_run(server, inputs, tmp_path / "run", tmp_path / "cache.sqlite3",
                                BatchOptions(export=exported, imports=imports))
            if not isinstance(outcome, Exported):
                break
            lines = [orjson.loads(line) for line in exported.read_bytes().splitlines()]
            replies = [server.rule(ReceivedRequest(0, "POST", "/", {}, orjson.dumps(line["body"]))) for line in lines]
            answers = [{"custom_id": line["custom_id"], "response": {"status_code": 200, "body": _chat(reply)},
                        "error": None} for line, reply in zip(lines, replies, strict=True)]
            (tmp_path / "out.jsonl").write_bytes(b"\n".join(orjson.dumps(a) for a in answers))
        assert round_number == 2 and server.created == 0  # scores, categories, then the results
        assert outcome[0].summary.counts["steps_scored"] == 7


def _chat(reply: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2}}


# --- a killed run resumes its batches -------------------------------------------------------------------------


def cli(server: BatchServer, inputs: Path, tmp_path: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", "from tracegrade.cli import main; main()", "judge", str(inputs),
               "--judge-url", server.base_url, "--judge-model", "scripted-judge", "--scoring-mode", "custom",
               "--rubric", CUSTOM["custom_rubric"], "--judge-batch", "--judge-batch-poll-seconds", "0.05",
               "-o", str(tmp_path / "run"), "--cache", str(tmp_path / "cache.sqlite3"), "--quiet"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])}
    return subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def high(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "high"
    write(folder / "a.json", trajectory("fix the bug", "SCORE:0.9 read", "SCORE:0.8 done"))
    write(folder / "b.json", trajectory("write the report", "SCORE:0.95"))
    yield folder


@pytest.mark.parametrize("stage", ["upload", "create", "status", "content"])
def test_a_run_killed_at_any_stage_resumes_its_batch_and_pays_nothing_twice(stage: str, high: Path,
                                                                           tmp_path: Path) -> None:
    with BatchServer(marker_rule) as server:
        server.hold(stage)
        process = cli(server, high, tmp_path)
        assert server.reached.wait(60), process.communicate(timeout=5)
        time.sleep(0.2)  # what the client writes before it waits is written (it never waits while writing)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        server.release()
        assert server.created <= 1
        rerun = cli(server, high, tmp_path)
        _, err = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, err.decode()[-2000:]
        assert server.created == 1  # the same batch: adopted or awaited, never made again
        assert sum(server.paid.values()) == 5 and max(server.paid.values()) == 1
        results = orjson.loads((tmp_path / "run" / "evaluation_results.json").read_bytes())
        assert results["summary"]["counts"]["steps_scored"] == 5


def test_localising_all_at_once_through_a_batch_names_the_same_steps_as_online(tmp_path: Path) -> None:
    from tests.atif.localising.plant import document, plant_rule, steps
    from tracegrade.atif import localise_inputs, localise_options, run_localise_job
    from tracegrade.atif.modes import run_localise_batch

    for i in range(3):
        write(tmp_path / "in" / f"{i}.json", document(steps(6, plant=2 + i), trajectory_id=f"t{i}"))
    inputs = localise_inputs([tmp_path / "in"])
    options = localise_options({"strategy": "all-at-once"})
    with ScriptedJudgeServer(plant_rule) as online:
        expected = asyncio.run(run_localise_job(inputs, options, JudgeTarget(url=online.base_url, model="m"),
                                                job_id="tl", cache_path=tmp_path / "online.sqlite3"))
    with BatchServer(plant_rule) as server:
        got = asyncio.run(run_localise_batch(inputs, options, JudgeTarget(url=server.base_url, model="m"),
                                             job_id="tl", folder=tmp_path / "out", cache_path=tmp_path / "b.sqlite3",
                                             batch=FAST))
        assert server.created == 1 and sum(server.paid.values()) == 3
    assert not isinstance(got, Exported)
    assert [(t.node_id, t.agent, t.step) for t in got.trajectories] == [
        (t.node_id, t.agent, t.step) for t in expected.trajectories]
    assert all(t.step is not None for t in got.trajectories)
    with pytest.raises(ConfigError, match="all-at-once"):
        asyncio.run(run_localise_batch(inputs, localise_options({"strategy": "binary-search"}),
                                       JudgeTarget(url=server.base_url, model="m"), job_id="tl",
                                       folder=tmp_path / "out", cache_path=tmp_path / "b.sqlite3", batch=FAST))
