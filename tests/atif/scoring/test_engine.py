"""The engine's logic through an in-process FakeJudge; two runs go over HTTP end to end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.atif.delayed import marker_answer, marker_judge
from tests.atif.scripted import CUSTOM, marker_rule, trajectory, write
from tracegrade.atif import EvaluationResults, JobContext, parse_parameters, score_paths
from tracegrade.atif.scoring import ScoringEngine
from tracegrade.atif.scoring._records import NodeStatusCode
from tracegrade.judge import Judge, JudgeCache, JudgeOptions, JudgeSettings
from tracegrade.judge.testing import FakeJudge, ScriptedJudgeServer


def run(paths: list[Path], judge: FakeJudge | None = None, hook: Any = None, **params: Any) -> EvaluationResults:
    """Score ``paths`` in-process, through a FakeJudge answering by the markers in the steps."""
    options, criteria = parse_parameters({**CUSTOM, **params})
    judge = judge if judge is not None else marker_judge()
    return asyncio.run(score_paths(paths, options, criteria, judge, JobContext("t", on_engine=hook)))


def run_over_http(
    server: ScriptedJudgeServer, paths: list[Path], cache: Path | None = None, hook: Any = None, **params: Any
) -> EvaluationResults:
    """Score ``paths`` end to end: the real judge client, its cache, and the scripted server."""
    options, criteria = parse_parameters({**CUSTOM, **params})

    async def main() -> EvaluationResults:
        settings = JudgeSettings(base_url=server.base_url, model="scripted", options=JudgeOptions(
            judge_max_attempts=1, concurrency_limit=options.concurrency_limit))
        store = JudgeCache(cache) if cache else None
        try:
            async with Judge(settings, cache=store) as judge:
                return await score_paths(paths, options, criteria, judge, JobContext("t", on_engine=hook))
        finally:
            if store is not None:
                store.close()  # not left to the garbage collector, whose close could land in the next run

    return asyncio.run(main())


def by_id(results: EvaluationResults) -> dict[str, Any]:
    return {n.node_id: n for n in results.nodes}


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    # parent steps 0.8, 0.6 (step 2 delegates), child steps 0.4, 0.2
    write(tmp_path / "p.json", trajectory("SCORE:0.8", "SCORE:0.6", refs={2: [{"trajectory_path": "c.json"}]}))
    write(tmp_path / "c.json", trajectory("SCORE:0.4", "SCORE:0.2"))
    return tmp_path


@pytest.mark.parametrize(
    ("mode", "expected", "count"), [("flat", 0.5, 2), ("hierarchical", 0.5, 1), ("separate", 0.7, 1)]
)
def test_nested_tree_under_each_mode(nested: Path, mode: str, expected: float, count: int) -> None:
    results = run([nested], subagent_aggregation=mode)
    assert results.summary.atif_overall_score == pytest.approx(expected)
    assert results.summary.atif_trajectory_count == count == results.summary.num_examples_evaluated
    nodes = by_id(results)
    assert nodes["p.json"].own_score == pytest.approx(0.7)
    assert nodes["p.json::c.json"].own_score == pytest.approx(0.3)
    assert nodes["p.json"].aggregate == pytest.approx(0.5)
    assert nodes["p.json::c.json"].parent_step_index == 2


def test_zero_parent_step_and_three_perfect_child_steps(tmp_path: Path) -> None:
    write(tmp_path / "p.json", trajectory("SCORE:0.0", refs={1: [{"trajectory_path": "c.json"}]}))
    write(tmp_path / "c.json", trajectory("SCORE:1.0", "SCORE:1.0", "SCORE:1.0"))
    results = run([tmp_path], subagent_aggregation="hierarchical")
    assert results.summary.atif_overall_score == pytest.approx(0.75)
    assert by_id(results)["p.json"].own_score == 0.0  # a genuine zero is a score


def test_depth_limit_leaves_child_unscored_and_parent_incomplete(nested: Path) -> None:
    results = run([nested], max_subagent_depth=0, subagent_aggregation="hierarchical")
    nodes = by_id(results)
    child = nodes["p.json::c.json"]
    assert child.status is NodeStatusCode.UNSCORED and child.error_code == "depth_limit"
    assert [s.status.value for s in child.steps] == ["not_run", "not_run"]
    assert nodes["p.json"].complete is False and nodes["p.json"].passed is False
    assert results.summary.atif_overall_score == pytest.approx(0.7)
    assert results.summary.atif_complete is False and results.summary.job_status == "completed"


def test_unresolvable_child_makes_root_incomplete(tmp_path: Path) -> None:
    write(tmp_path / "p.json", trajectory("SCORE:0.6", refs={1: [{"trajectory_path": "missing.json"}]}))
    results = run([tmp_path])
    root = by_id(results)["p.json"]
    assert root.complete is False and root.aggregate == pytest.approx(0.6)
    assert by_id(results)["p.json::missing.json"].error_code == "unresolvable_ref"
    assert results.parameters.atif_complete is False


def test_fail_fast_stops_and_keeps_finished(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory("FAIL", *["SCORE:0.9"] * 30))
    write(tmp_path / "b.json", trajectory("SCORE:0.9"))
    judge = marker_judge()
    results = run([tmp_path], judge, concurrency_limit=1)
    assert results.summary.job_status == "failed" and "a.json" in (results.summary.failure_reason or "")
    a = by_id(results)["a.json"]
    assert a.status is NodeStatusCode.FAILED and a.error_code == "transport_error"
    assert a.steps[0].error_code == "transport_error" and a.steps[0].score is None
    assert len(judge.requests) < 31  # new calls stopped


def test_skip_failed_trajectory_lets_good_roots_count(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory("SCORE:0.9", "FAIL"))
    write(tmp_path / "b.json", trajectory("SCORE:0.4"))
    results = run([tmp_path], partial_result_policy="skip_failed_trajectory")
    assert results.summary.job_status == "completed"
    assert results.summary.atif_overall_score == pytest.approx(0.4)
    assert by_id(results)["a.json"].status is NodeStatusCode.FAILED
    assert by_id(results)["a.json"].steps[0].score == pytest.approx(0.9)  # finished work is kept
    assert results.summary.atif_complete is False


@pytest.mark.parametrize("policy", ["fail_fast", "skip_failed_trajectory"])
def test_all_roots_failed_fails_the_job(tmp_path: Path, policy: str) -> None:
    write(tmp_path / "a.json", trajectory("FAIL"))
    write(tmp_path / "b.json", trajectory("FAIL"))
    results = run([tmp_path], partial_result_policy=policy)
    assert results.summary.job_status == "failed"
    assert results.summary.atif_overall_score is None and results.summary.atif_trajectory_count == 0


def test_categorization_statuses_and_rate(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory("SCORE:0.1 CAT:tool_selection_failure", "SCORE:0.9"))
    write(tmp_path / "b.json", trajectory("SCORE:0.1 CAT:none"))
    write(tmp_path / "c.json", trajectory("SCORE:0.1 CAT:garbage"))
    write(tmp_path / "d.json", trajectory("SCORE:0.1 CAT:http500"))
    write(tmp_path / "e.json", trajectory("SCORE:0.5"))  # not strictly below the threshold
    results = run([tmp_path])
    first = {n.node_id: n.steps[0] for n in results.nodes}
    assert (first["a.json"].category, first["a.json"].categorization_status.value) == (
        "tool_selection_failure",
        "categorized",
    )
    assert (first["b.json"].category, first["b.json"].categorization_status.value) == ("none", "abstained")
    assert (first["c.json"].category, first["c.json"].categorization_status.value) == ("uncategorized", "uncategorized")
    assert first["c.json"].categorization_error_code == "schema_violation"  # not a category: unusable, not a guess
    assert first["d.json"].categorization_status.value == "judge_error"
    assert first["d.json"].categorization_error_code == "http_status_500"
    assert first["e.json"].failure_candidate is False
    assert results.summary.atif_failure_categorization_rate == pytest.approx(1 / 4)


def test_copied_context_is_kept_but_not_scored(tmp_path: Path) -> None:
    doc = trajectory("SCORE:0.2", "SCORE:0.4")
    doc["steps"][0]["is_copied_context"] = True
    write(tmp_path / "a.json", doc)
    engines: list[ScoringEngine] = []
    (node,) = run([tmp_path], hook=engines.append).nodes
    assert [s.status.value for s in node.steps] == ["copied_context", "scored"]
    assert node.own_score == pytest.approx(0.4) and node.step_count == 1 and node.total_steps == 2
    assert (engines[0].progress.steps_total, engines[0].progress.steps_done) == (1, 1)  # the steps judged
    (literal,) = run([tmp_path], score_copied_context=True, hook=engines.append).nodes
    assert (engines[1].progress.steps_total, engines[1].progress.steps_done) == (2, 2)
    assert [s.status.value for s in literal.steps] == ["scored", "scored"]
    assert literal.own_score == pytest.approx(0.3) and literal.step_count == 2


def test_a_skipped_input_makes_the_run_incomplete(tmp_path: Path) -> None:
    write(tmp_path / "outside.json", trajectory("SCORE:0.9"))
    write(tmp_path / "in" / "a.json", trajectory("SCORE:0.9"))
    (tmp_path / "in" / "link.json").symlink_to(tmp_path / "outside.json")
    results = run([tmp_path / "in"])
    assert [(i.status, i.code) for i in results.inputs if i.status != "loaded"] == [
        ("skipped", "ref_outside_root")
    ]
    assert results.summary.job_status == "completed" and results.nodes[0].complete is True
    assert results.summary.atif_complete is False and results.parameters.atif_complete is False


def test_all_steps_share_one_pool_across_trajectories(tmp_path: Path) -> None:
    for i in range(4):
        write(tmp_path / f"t{i}.json", trajectory(*["SCORE:0.9"] * 10))
    judge = marker_judge(delay=lambda request: 0.01)
    results = run([tmp_path], judge, concurrency_limit=8)
    assert judge.peak_in_flight == 8  # not one trajectory at a time: every worker busy at once
    assert results.summary.counts["steps_scored"] == 40


def test_the_engine_is_handed_over_before_it_starts_and_can_be_interrupted(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory(*["SCORE:0.9"] * 20))
    seen: list[ScoringEngine] = []

    def hook(engine: ScoringEngine) -> None:
        seen.append(engine)
        engine.interrupt()

    results = run([tmp_path], hook=hook)
    assert len(seen) == 1 and seen[0].interrupted
    assert results.summary.job_status == "interrupted" and results.summary.counts["steps_not_run"] == 20


def test_interrupt_keeps_finished_steps_and_rerun_resumes_from_cache(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory(*["SCORE:0.9"] * 20))
    cache = tmp_path / "cache.sqlite3"
    with ScriptedJudgeServer(marker_rule, latency=0.05) as server:

        def hook(engine: ScoringEngine) -> None:
            asyncio.get_running_loop().call_later(0.22, engine.interrupt)

        first = run_over_http(server, [tmp_path / "a.json"], cache=cache, hook=hook, concurrency_limit=2)
        done = first.summary.counts.get("steps_scored", 0)
        assert first.summary.job_status == "interrupted" and 0 < done < 20
        assert first.summary.counts["steps_not_run"] == 20 - done
        calls = server.count
        second = run_over_http(server, [tmp_path / "a.json"], cache=cache, concurrency_limit=2)
    assert second.summary.job_status == "completed" and second.summary.counts["steps_scored"] == 20
    assert server.count - calls == 20 - done
    assert second.summary.judge["cache_hits"] == done


def test_harbor_trials_score_end_to_end(judge_server: ScriptedJudgeServer, shared_corpus: Path) -> None:
    results = run_over_http(
        judge_server, [shared_corpus / "atif/harbor/trials"], scoring_mode="auto", custom_rubric=None
    )
    roots = [n for n in results.nodes if n.depth == 0]
    assert len(roots) == 7 and results.summary.job_status == "completed"
    assert all(n.status is NodeStatusCode.SCORED for n in roots)
    linear = by_id(results)["terminus2-context-summarization-linear-history/trajectory.json"]
    assert linear.complete is False and linear.total_steps == 13
    summarized = by_id(results)["terminus2-context-summarization/trajectory.json"]
    assert summarized.complete is True and len(summarized.children) == 3
    assert results.summary.atif_complete is False
    assert results.summary.atif_overall_score == pytest.approx(0.9)


def test_evalhub_fixtures_score_in_reference_mode(shared_corpus: Path) -> None:
    fixtures = shared_corpus / "atif/evalhub-contrib/tests/fixtures"
    registry = fixtures / "reference_registry.json"
    judge = marker_judge()
    results = run(
        [fixtures / "trajectory.json", fixtures / "trajectory_v1_7.json"],
        judge,
        scoring_mode="reference",
        reference_registry_path=str(registry),
        reference_rubric="answer_quality",
        custom_rubric=None,
        partial_result_policy="skip_failed_trajectory",
    )
    nodes = by_id(results)
    scored, missing = nodes["trajectory.json"], nodes["trajectory_v1_7.json"]
    assert scored.status is NodeStatusCode.SCORED and scored.criteria is not None
    assert scored.criteria["reference_id"] == "t1"
    assert set(scored.steps[0].criterion_scores or {}) == {"correctness", "safety"}
    assert missing.status is NodeStatusCode.FAILED and missing.error_code == "reference_missing"
    prompts = [r.messages[-1]["content"] for r in judge.requests]
    assert any("safe and helpful answer" in p for p in prompts)  # the reference reached the judge as evidence


@pytest.mark.parametrize("policy", ["fail_fast", "skip_failed_trajectory"])
def test_an_unexpected_error_in_a_worker_fails_the_job_and_never_strands_it(tmp_path: Path, policy: str) -> None:
    """Issue 23 item 7: each error killed a worker; with more steps than workers the run waited for ever."""
    write(tmp_path / "a.json", trajectory(*["SCORE:0.9"] * 12))

    def answer(request: Any) -> Any:
        return ValueError("Cannot combine AUTHORIZATION header with credentials encoded in URL")

    options, criteria = parse_parameters({**CUSTOM, "concurrency_limit": 2, "partial_result_policy": policy})

    async def guarded() -> EvaluationResults:
        return await asyncio.wait_for(score_paths([tmp_path], options, criteria, FakeJudge(answer), JobContext("t")),
                                      timeout=120)  # a guard against the hang, not a speed check

    results = asyncio.run(guarded())
    assert results.summary.job_status == "failed"
    assert results.summary.failure_reason == "internal error in a judge call (ValueError)"
    steps = results.nodes[0].steps
    assert {s.error_code for s in steps} <= {"internal_error", None} and steps[0].error_code == "internal_error"
    assert sum(s.status.value == "not_run" for s in steps) >= 12 - 2  # queued work was skipped, not waited on


def test_each_step_is_asked_once_and_its_reviewer_copy_is_what_the_judge_was_shown(nested: Path) -> None:
    judge = marker_judge()
    results = run([nested], judge)
    steps = [s for n in results.nodes for s in n.steps]
    scoring = [r for r in judge.requests if r.purpose == "score"]
    assert len(steps) == 4 and len(scoring) == len(steps)  # one scoring question per step, counted at the judge
    shown = ["\n".join(m["content"] for m in r.messages) for r in scoring]
    for step in steps:
        assert step.content is not None and step.content.message
        assert sum(step.content.message in text for text in shown) >= 1, step.content.message
    delegation = by_id(results)["p.json"].steps[1].content
    assert delegation is not None  # the parent's delegating step is in the child's evidence as well
    assert sum(delegation.message in text for text in shown) >= 2


def test_scored_frames_agent_scores_agent_steps_only_and_keeps_the_others_as_evidence(tmp_path: Path) -> None:
    # step 1 is the user's task (0.1), steps 2 and 3 the agent's (0.8, 0.6)
    write(tmp_path / "t.json", trajectory("SCORE:0.1 task", "SCORE:0.8", "SCORE:0.6"))
    seen: list[str] = []

    def recording(request: Any) -> Any:
        seen.append(request.messages[-1]["content"])
        return marker_answer(request)

    everything = run([tmp_path])
    agent_only = run([tmp_path], judge=FakeJudge(recording), scored_frames="agent")
    assert everything.summary.atif_overall_score == pytest.approx(0.5)
    assert agent_only.summary.atif_overall_score == pytest.approx(0.7)  # the user frame is out of the mean
    steps = agent_only.nodes[0].steps
    assert [s.status.value for s in steps] == ["evidence_only", "scored", "scored"]
    assert (agent_only.parameters.atif_scored_frames, everything.parameters.atif_scored_frames) == ("agent", "all")
    assert agent_only.provenance["scored_frames"] == "agent"
    assert len(seen) == 2 and all('"source":"user"' in prompt for prompt in seen)  # shown as history
