"""Localising the selected roots: repeats and their agreement, root selection, from-scores, the document."""

from __future__ import annotations

import asyncio
import itertools
import random
from pathlib import Path
from typing import Any

import pytest

from tests.atif.helpers import write
from tests.atif.localising.plant import accurate, document, planted_answer, planted_tree, steps
from tests.atif.scripted import current_message, scripted_answer
from tracegrade.atif import (
    EvaluationResults,
    JobContext,
    LoadOptions,
    LocaliseOptions,
    Strategy,
    load_trajectories,
    localise_loaded,
    parse_parameters,
    score_paths,
)
from tracegrade.atif.localising._localise import pair_agreement
from tracegrade.errors import ConfigError
from tracegrade.judge import JudgeRequest
from tracegrade.judge.testing import FakeJudge


def folder(tmp_path: Path, count: int = 3, n: int = 6) -> Path:
    for i in range(count):
        write(tmp_path / "in" / f"{i}.json", document(steps(n, plant=2 + i % (n - 1)), trajectory_id=f"t{i}"))
    return tmp_path / "in"


def localise(path: Path, judge: FakeJudge | None, run: EvaluationResults | None = None,
             **options: Any) -> Any:
    loaded = load_trajectories([path], LoadOptions())
    return asyncio.run(localise_loaded(loaded, LocaliseOptions.model_validate(options), judge, job_id="j", run=run))


def planted(request: JudgeRequest) -> dict[str, Any]:
    return planted_answer(request.messages[-1]["content"])


def test_pair_agreement_is_the_share_of_equal_pairs() -> None:
    assert pair_agreement(["a", "a"]) == 1.0 and pair_agreement(["a", "b"]) == 0.0
    assert pair_agreement(["a", "a", "b"]) == pytest.approx(1 / 3)
    assert pair_agreement([None, None, "a", "a"]) == pytest.approx(2 / 6)


def test_repeats_keep_the_most_frequent_step_and_report_their_agreement(tmp_path: Path) -> None:
    answers = itertools.cycle(["T0.3", "T0.5", "T0.3"])

    def judge(request: JudgeRequest) -> dict[str, Any]:
        return {"agent": "solver", "step": next(answers), "reason": "r"}

    fake = FakeJudge(judge)
    results = localise(folder(tmp_path, 1), fake, judge_repeats=3, judge_seed=7)
    found = results.trajectories[0]
    assert found.step.ref == "T0.3" and found.calls == 3 and len(fake.requests) == 3
    assert sorted(found.repeats.steps) == ["T0.3", "T0.3", "T0.5"]
    assert found.repeats.step_agreement == pytest.approx(1 / 3) and found.repeats.modal_share == pytest.approx(2 / 3)
    assert found.repeats.agent_agreement == 1.0 and results.summary.repeat_step_agreement.value == pytest.approx(1 / 3)
    seeds = [r.seed for r in fake.requests]
    assert None in seeds and len(set(seeds)) == 3  # repeat 0 keeps the configured seed, the others get their own


def test_a_tie_between_repeats_keeps_the_earliest_step(tmp_path: Path) -> None:
    answers = itertools.cycle(["T0.5", "T0.3"])
    fake = FakeJudge(lambda request: {"agent": "solver", "step": next(answers), "reason": "r"})
    assert localise(folder(tmp_path, 1), fake, judge_repeats=2).trajectories[0].step.ref == "T0.3"


def test_one_failing_repeat_fails_the_trajectory_with_its_code(tmp_path: Path) -> None:
    answers = itertools.cycle([{"agent": "solver", "step": "T0.3", "reason": "r"}, {"step": "T0.3"}])
    results = localise(folder(tmp_path, 1), FakeJudge(lambda request: next(answers)), judge_repeats=2)
    assert (results.trajectories[0].status, results.trajectories[0].error_code) == ("failed", "schema_violation")
    assert results.summary.failed == 1 and results.trajectories[0].calls == 2


def test_the_document_records_the_prompt_and_the_judge_but_no_secret(tmp_path: Path) -> None:
    results = localise(folder(tmp_path), FakeJudge(planted), strategy=Strategy.STEP_BY_STEP)
    assert results.provenance["prompt_version"] == "atif-localise-v2" and results.provenance["judge"]["model"] == "fake"
    assert results.summary.trajectories == 3 and results.summary.localised == 3
    assert results.summary.calls == sum(t.calls for t in results.trajectories) == results.summary.judge["requests"]
    assert [t.selected for t in results.trajectories] == ["every root (no judge run)"] * 3
    assert "api_key" not in results.model_dump_json()


def judged(path: Path, scores: dict[str, float]) -> EvaluationResults:
    """A judge run whose steps score by the word they contain (``ordinary`` or the plant)."""
    options, criteria = parse_parameters({"scoring_mode": "benchmark", "benchmark_name": "humanevalfix",
                                          "trajectory_path": str(path)})

    def answer(request: JudgeRequest) -> dict[str, Any]:
        prompt = request.messages[-1]["content"]
        current = current_message(prompt)
        score = scores["plant"] if "DECISIVE" in current else scores["other"]
        return scripted_answer({"messages": list(request.messages)}, score=score)

    return asyncio.run(score_paths([path], options, criteria, FakeJudge(answer), JobContext("run")))


def test_with_a_run_only_its_failed_roots_are_localised_unless_asked(tmp_path: Path) -> None:
    path = folder(tmp_path)
    failing = judged(path, {"plant": 0.0, "other": 0.3})
    selected = [t.selected for t in localise(path, FakeJudge(planted), failing).trajectories]
    assert selected == ["judge run: not passed"] * 3
    passing = judged(path, {"plant": 0.9, "other": 0.9})
    skipped = localise(path, FakeJudge(planted), passing)
    assert skipped.trajectories == [] and skipped.summary.not_selected == 3
    assert len(localise(path, FakeJudge(planted), passing, localise_passed=True).trajectories) == 3
    assert len(localise(path, FakeJudge(planted), None, num_examples=2).trajectories) == 2


def test_from_scores_names_the_first_step_below_the_threshold_without_asking(tmp_path: Path) -> None:
    path = folder(tmp_path)
    run = judged(path, {"plant": 0.1, "other": 0.7})
    results = localise(path, None, run, strategy=Strategy.FROM_SCORES, localise_passed=True)
    assert [t.step.index for t in results.trajectories] == [2, 3, 4]
    assert all(t.calls == 0 and t.used is Strategy.FROM_SCORES for t in results.trajectories)
    nothing_low = localise(path, None, judged(path, {"plant": 0.7, "other": 0.7}), strategy=Strategy.FROM_SCORES,
                           localise_passed=True)
    assert {t.status for t in nothing_low.trajectories} == {"none_found"}


def test_what_a_strategy_needs_is_checked_first(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="give a judge run"):
        localise(folder(tmp_path), None, strategy=Strategy.FROM_SCORES)
    with pytest.raises(ConfigError, match="needs a judge"):
        localise(folder(tmp_path), None)


def test_the_simulated_judge_is_right_about_as_often_as_planted(tmp_path: Path) -> None:
    path = folder(tmp_path, count=60, n=8)
    results = localise(path, FakeJudge(accurate(0.5, random.Random(3))))
    plants = {f"{i}.json": 2 + i % 7 for i in range(60)}
    right = sum(t.step.index == plants[t.node_id] for t in results.trajectories)
    assert 15 <= right <= 45  # 60 draws at p = 0.5: outside this band has probability < 1e-4


def test_a_root_the_run_gave_no_verdict_is_localised(tmp_path: Path) -> None:
    path = folder(tmp_path)
    run = judged(path, {"plant": 0.9, "other": 0.9})  # every root passed
    unsure = run.model_copy(update={"nodes": [run.nodes[0].model_copy(update={"passed": None}), *run.nodes[1:]]})
    found = localise(path, FakeJudge(planted), unsure).trajectories
    assert [(t.node_id, t.selected) for t in found] == [(run.nodes[0].node_id, "judge run: no verdict")]


def test_from_scores_reads_the_verdict_of_the_logical_step_in_a_continuation(tmp_path: Path) -> None:
    root, plant = planted_tree(tmp_path / "in", "continuation")
    run = judged(tmp_path / "in", {"plant": 0.1, "other": 0.8})
    found = localise(root, None, run, strategy=Strategy.FROM_SCORES, localise_passed=True).trajectories[0]
    assert found.step is not None and (found.step.index, found.step.segment) == (plant["index"], 1)
    assert found.step.step_id == 4 != found.step.index  # the plant sits at step_id 4 of the continuation
