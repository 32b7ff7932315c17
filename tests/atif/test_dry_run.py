"""The dry run counts what a real run sends: the same requests, the same prompt bytes, nothing sent or written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.atif.scripted import scripted_answer
from tracegrade.atif import JobContext, JudgeTarget, parse_parameters, run_atif_job
from tracegrade.atif._dry_run import dry_run_document, dry_run_job
from tracegrade.errors import ConfigError
from tracegrade.judge import Prices
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply

MODES = {"benchmark": {"scoring_mode": "benchmark", "benchmark_name": "terminal-bench"},
         "auto": {"scoring_mode": "auto"}}


def low_and_high(request: ReceivedRequest) -> ScriptedReply:
    """Every other scoring answer below the failure threshold, so that some steps are categorised."""
    return ScriptedReply.answer(scripted_answer(request.json(), score=0.2 if request.index % 2 else 0.9))


@pytest.fixture
def server() -> Iterator[ScriptedJudgeServer]:
    with ScriptedJudgeServer(low_and_high) as running:
        yield running


def purpose(body: dict[str, Any]) -> str:
    return str(body["response_format"]["json_schema"]["name"]).removeprefix("tracegrade_")


def sent(server: ScriptedJudgeServer, kind: str) -> tuple[int, int]:
    """The requests of one purpose the server received, and their prompt bytes as the dry run counts them."""
    bodies = [r.json() for r in server.requests if purpose(r.json()) == kind]
    size = sum(len("".join(f"{m['role']}\n{m['content']}\n" for m in b["messages"]).encode()) for b in bodies)
    return len(bodies), size


async def test_the_dry_run_counts_the_requests_and_bytes_a_real_run_sends(
        server: ScriptedJudgeServer, shared_corpus: Path, tmp_path: Path) -> None:
    corpus = shared_corpus / "atif" / "harbor"
    options, criteria = parse_parameters({**MODES["benchmark"], "trajectory_path": str(corpus), "concurrency_limit": 1,
                                          "partial_result_policy": "skip_failed_trajectory"})
    target = JudgeTarget(url=server.base_url, model="scripted-judge")
    cache = tmp_path / "cache.sqlite3"
    found = await dry_run_job([corpus], options, criteria, target, "dry", cache_path=cache)
    assert server.count == 0 and not cache.exists()  # nothing sent, no cache file made
    results, _ = await run_atif_job([corpus], options, criteria, target, JobContext("real"), out_dir=None,
                                    cache_path=cache)
    score, categorize = found.purposes["score"], found.purposes["categorize"]
    assert (score.requests, score.prompt_bytes) == sent(server, "score")
    assert score.requests + score.repeated == results.summary.counts["steps_scored"] > 10
    real_categorized, _ = sent(server, "categorize")
    assert 0 < real_categorized < categorize.requests == score.requests  # the upper bound: every step low
    assert score.prompt_bytes // 4 <= score.input_tokens <= score.prompt_bytes // 4 + score.requests
    assert 0 < score.cacheable_tokens < score.input_tokens

    again = await dry_run_job([corpus], options, criteria, target, "dry", cache_path=cache)
    assert again.purposes["score"].requests == 0
    assert again.purposes["score"].cached == score.requests + score.repeated
    assert again.purposes["categorize"].cached == real_categorized  # the low steps, answered from the cache
    assert server.count == score.requests + real_categorized


async def test_auto_mode_counts_a_derivation_per_task_and_says_the_scoring_bytes_are_estimated(
        server: ScriptedJudgeServer, tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "atif"
    options, criteria = parse_parameters({**MODES["auto"], "trajectory_path": str(examples)})
    target = JudgeTarget(url=server.base_url, model="scripted-judge")
    found = await dry_run_job([examples], options, criteria, target, "dry", cache_path=None)
    assert found.purposes["derive"].requests >= 1 and found.stand_in_criteria
    document = dry_run_document(found, Prices(input=1.0, cached_input=0.5, output=2.0), batch=True)
    assert any("stand-in" in note for note in document["notes"])
    total = document["total"]
    assert total["requests"] == sum(row["requests"] for row in document["purposes"].values())
    assert total["cost_batch_with_cache"] == pytest.approx(total["cost_online_with_cache"] / 2)
    assert total["cost_online_with_cache"] <= total["cost_online_without_cache"]
    assert server.count == 0


async def test_the_local_judge_has_no_price(tmp_path: Path) -> None:
    options, criteria = parse_parameters({**MODES["benchmark"], "trajectory_path": str(tmp_path)})
    with pytest.raises(ConfigError, match="local judge"):
        await dry_run_job([tmp_path], options, criteria, JudgeTarget(local=True), "dry", cache_path=None)
