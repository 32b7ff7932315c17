"""Repeated judgements through the engine, against a scripted judge with known noise."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.atif.scripted import CUSTOM, current_message, scripted_answer, trajectory, write
from tracegrade.atif import EvaluationResults, JobContext, parse_parameters, score_paths
from tracegrade.atif.output._artifacts import write_artifacts
from tracegrade.atif.output._merge import merge_results
from tracegrade.atif.scoring import StepStatus
from tracegrade.atif.scoring._repeats import repeat_seed
from tracegrade.errors import JudgeError
from tracegrade.judge import Judge, JudgeCache, JudgeRequest, JudgeSettings, cache_key
from tracegrade.judge.testing import FakeJudge, ScriptedJudgeServer, ScriptedReply
from tracegrade.runs import Shard

_TRUE = re.compile(r"TRUE:([0-9.]+)")
NOISE = {None: -0.1, repeat_seed(None, 1): 0.0, repeat_seed(None, 2): 0.1}
"""The scripted judge's error by request seed: verdicts t - 0.1, t, t + 0.1 around the true score t."""


def noisy_answer(request: JudgeRequest) -> dict[str, Any] | Exception:
    message = current_message(request.messages[-1]["content"])
    if request.purpose == "categorize":
        return {"category": "reasoning_failure", "rationale": "scripted"}
    true = float(_TRUE.findall(message)[0])
    if "BROKEN" in message and request.seed is not None:
        return JudgeError("scripted protocol failure", code="invalid_json")
    value = min(1.0, max(0.0, round(true + NOISE[request.seed], 10)))
    names = request.response_schema["properties"]["scores"]["required"]
    return {"scores": dict.fromkeys(names, value), "rationale": f"seed {request.seed}"}


def noisy_judge(delay: float = 0.0) -> FakeJudge:
    return FakeJudge(noisy_answer, delay=lambda request: delay)


def score(folder: Path, judge: FakeJudge, **params: Any) -> EvaluationResults:
    options, criteria = parse_parameters({**CUSTOM, **params})
    return asyncio.run(score_paths([folder], options, criteria, judge, JobContext("r")))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    # true scores: a = 0.9, 0.55, 0.3; b = 0.7
    write(tmp_path / "in" / "a.json", trajectory("TRUE:0.9", "TRUE:0.55", "TRUE:0.3"))
    write(tmp_path / "in" / "b.json", trajectory("TRUE:0.7"))
    return tmp_path / "in"


def test_three_verdicts_give_the_mean_and_the_spread_computed_by_hand(folder: Path) -> None:
    results = score(folder, noisy_judge(), judge_repeats=3)
    steps = {(n.node_id, s.index): s for n in results.nodes for s in n.steps}
    middle = steps[("a.json", 2)]
    assert middle.score == pytest.approx(0.55)
    assert middle.repeats is not None
    assert middle.repeats.scores == pytest.approx([0.45, 0.55, 0.65])
    assert middle.repeats.seeds == [None, repeat_seed(None, 1), repeat_seed(None, 2)]
    assert (middle.repeats.std, middle.repeats.min, middle.repeats.max) == (pytest.approx(0.1), 0.45, 0.65)
    assert middle.repeats.unstable and not middle.failure_candidate  # mean 0.55 is above the threshold
    assert steps[("a.json", 3)].repeats.unstable is False and steps[("a.json", 3)].failure_candidate  # 0.2..0.4
    summary = results.summary.repeats
    assert summary is not None
    assert (summary.repeats, summary.steps, summary.unstable_steps) == (3, 4, 1)
    assert summary.unstable_share == pytest.approx(1 / 4)
    assert summary.mean_std == pytest.approx(0.1)
    assert results.summary.atif_overall_score == pytest.approx(((0.9 + 0.55 + 0.3) / 3 + 0.7) / 2)
    interval = summary.overall_score_interval
    assert interval.low < results.summary.atif_overall_score < interval.high


def test_one_repeat_keeps_requests_cache_keys_and_results(folder: Path, tmp_path: Path) -> None:
    plain, once = noisy_judge(), noisy_judge()
    before, after = score(folder, plain), score(folder, once, judge_repeats=1)
    provenance = plain.settings.provenance()
    keys = [(r.canonical, r.seed, cache_key(provenance, r)) for r in plain.requests]
    assert sorted(keys) == sorted((r.canonical, r.seed, cache_key(provenance, r)) for r in once.requests)
    assert all(r.seed is None for r in once.requests)
    write_artifacts(before, tmp_path / "before")
    write_artifacts(after.model_copy(update={"created_at": before.created_at}), tmp_path / "after")
    first = (tmp_path / "before" / "evaluation_results.json").read_bytes()
    assert first == (tmp_path / "after" / "evaluation_results.json").read_bytes()
    assert b"repeats" not in first and "judge_repeats" not in orjson.loads(first)["parameters"]


def test_a_failed_repeat_fails_the_step_never_scores_it(tmp_path: Path) -> None:
    write(tmp_path / "in" / "a.json", trajectory("TRUE:0.9", "TRUE:0.8 BROKEN"))
    results = score(tmp_path / "in", noisy_judge(), judge_repeats=3, partial_result_policy="skip_failed_trajectory")
    broken = results.nodes[0].steps[1]
    assert (broken.status, broken.error_code, broken.score, broken.repeats) == (
        StepStatus.FAILED,
        "invalid_json",
        None,
        None,
    )


def test_repeats_of_all_steps_share_one_pool(tmp_path: Path) -> None:
    for t in range(4):
        write(tmp_path / "in" / f"t{t}.json", trajectory("TRUE:0.9", "TRUE:0.8"))
    judge = noisy_judge(delay=0.02)
    score(tmp_path / "in", judge, judge_repeats=3, concurrency_limit=6)
    assert len(judge.requests) == 8 * 3
    assert judge.peak_in_flight == 6


def test_each_repeat_is_cached_separately_and_a_rerun_asks_nothing(tmp_path: Path) -> None:
    write(tmp_path / "in" / "a.json", trajectory("TRUE:0.9", "TRUE:0.8"))
    options, criteria = parse_parameters({**CUSTOM, "judge_repeats": 3, "judge_seed": 4})

    def rule(request: Any) -> ScriptedReply:
        return ScriptedReply.answer(scripted_answer(request.json(), score=0.8))

    async def main(server: ScriptedJudgeServer) -> None:
        settings = JudgeSettings(base_url=server.base_url, model="scripted", options=options)
        async with Judge(settings, cache=JudgeCache(tmp_path / "c.sqlite3")) as judge:
            await score_paths([tmp_path / "in"], options, criteria, judge, JobContext("c"))

    with ScriptedJudgeServer(rule) as server:
        asyncio.run(main(server))
        assert server.count == 6
        assert sorted({r.json()["seed"] for r in server.requests}) == sorted([4, repeat_seed(4, 1), repeat_seed(4, 2)])
        asyncio.run(main(server))
        assert server.count == 6


def test_report_and_files_show_the_spread(folder: Path, tmp_path: Path) -> None:
    results = score(folder, noisy_judge(), judge_repeats=3)
    write_artifacts(results, tmp_path / "run")
    page = (tmp_path / "run" / "report.html").read_text()
    assert "unstable steps" in page and "3 verdicts (0.450, 0.550, 0.650)" in page
    written = orjson.loads((tmp_path / "run" / "evaluation_results.json").read_bytes())
    assert written["parameters"]["judge_repeats"] == 3
    assert written["summary"]["repeats"]["unstable_steps"] == 1


def test_merged_shards_report_the_same_stability(folder: Path) -> None:
    whole = score(folder, noisy_judge(), judge_repeats=3)
    options, criteria = parse_parameters({**CUSTOM, "judge_repeats": 3})
    shards = [
        asyncio.run(score_paths([folder], options, criteria, noisy_judge(), JobContext("r", shard=Shard(i, 2))))
        for i in range(2)
    ]
    assert merge_results(shards).summary.repeats == whole.summary.repeats
