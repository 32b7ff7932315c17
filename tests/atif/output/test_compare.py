from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.atif.output.comparing import judged, trajectory
from tests.atif.scripted import marker_rule
from tracegrade.atif import ComparisonOptions, compare_runs
from tracegrade.errors import ConfigError, InputError
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.stats import GateOptions

BASE = {"a.json": trajectory("task a SCORE:0.8", "SCORE:0.6"), "b.json": trajectory("task b SCORE:0.9", "SCORE:0.9")}
"""a: own 0.7, b: own 0.9; collection score 0.8."""
WORSE = {"a.json": trajectory("task a SCORE:0.8", "SCORE:0.0"), "b.json": trajectory("task b SCORE:0.9", "SCORE:0.5")}
"""a: own 0.4 (below completion_threshold 0.5), b: own 0.7; collection score 0.55."""


def _with_subagent(score: str) -> dict[str, Any]:
    sub = trajectory("sub task SCORE:0.6", f"SCORE:{score}", trajectory_id="sub-1")
    return trajectory("task s SCORE:0.8", "SCORE:0.8", refs={2: [{"trajectory_id": "sub-1"}]},
                      subagent_trajectories=[sub])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("runs")
    skip = ("--partial-result-policy", "skip_failed_trajectory")
    failing = {**BASE, "a.json": trajectory("task a SCORE:0.8", "FAIL")}
    renamed = {"z.json": WORSE["a.json"], "c.json": trajectory("task c SCORE:0.5")}
    with ScriptedJudgeServer(marker_rule) as server:
        yield {
            "base": judged(server, root / "base", BASE),
            "again": judged(server, root / "again", BASE),
            "worse": judged(server, root / "worse", WORSE),
            "failed": judged(server, root / "failed", failing, *skip),
            "renamed": judged(server, root / "renamed", renamed),
            "other_model": judged(server, root / "other", BASE, model="another-judge"),
            "whole": judged(server, root / "whole", BASE, "--job-id", "sharded", inputs=root / "shared"),
            "shard0": judged(server, root / "shard0", BASE, "--shard", "0/2", "--job-id", "sharded",
                             inputs=root / "shared"),
            "shard1": judged(server, root / "shard1", BASE, "--shard", "1/2", "--job-id", "sharded",
                             inputs=root / "shared"),
            "sub_base": judged(server, root / "sub_base", {"s.json": _with_subagent("0.2")}, "--subagent-aggregation",
                               "hierarchical"),
            "sub_cand": judged(server, root / "sub_cand", {"s.json": _with_subagent("1.0")}, "--subagent-aggregation",
                               "hierarchical"),
        }


def test_a_run_compared_with_itself_changes_nothing_and_passes_the_gate(runs: dict[str, Path]) -> None:
    gate = GateOptions(fail_on_regression=True, fail_on_new_failures=True)
    c = compare_runs(runs["base"], runs["base"], gate=gate).comparison
    assert c.mean_delta == 0.0 and (c.interval.low, c.interval.high) == (0.0, 0.0) and c.n == 2
    assert c.improved == [] and c.regressed == [] and c.unchanged == ["a.json", "b.json"]
    assert c.newly_failing == [] and c.newly_passing == [] and c.p_value is None
    assert all(p.delta == 0.0 and all(n.delta == 0.0 for n in p.nodes) for p in c.pairs)
    assert all(d.mean_delta == 0.0 for d in c.per_criterion)
    assert c.gate.exit_code == 0 and c.gate.fired == [] and c.comparable and c.allowed_differences == []


def test_a_rerun_of_the_same_inputs_is_comparable_and_equal(runs: dict[str, Path]) -> None:
    c = compare_runs(runs["base"], runs["again"]).comparison
    assert c.mean_delta == 0.0 and c.pairing["relative_path"] == 2


def test_hand_computed_deltas(runs: dict[str, Path]) -> None:
    c = compare_runs(runs["base"], runs["worse"]).comparison
    assert (c.baseline_score, c.candidate_score) == (pytest.approx(0.8), pytest.approx(0.55))
    assert c.mean_delta == pytest.approx(-0.25) and c.n == 2
    assert c.interval.low == pytest.approx(-0.3) and c.interval.high == pytest.approx(-0.2)
    pairs = {p.id: p for p in c.pairs}
    assert pairs["a.json"].delta == pytest.approx(-0.3) and pairs["b.json"].delta == pytest.approx(-0.2)
    assert [p.id for p in c.pairs] == ["a.json", "b.json"]  # biggest regression first
    assert c.regressed == ["a.json", "b.json"] and c.newly_failing == ["a.json"]
    assert (pairs["a.json"].baseline_passed, pairs["a.json"].candidate_passed) == (True, False)
    assert (c.wilcoxon.statistic, c.wilcoxon.n, c.p_value) == (0.0, 2, pytest.approx(0.5))
    assert {d.criterion: (round(d.mean_delta, 9), d.n) for d in c.per_criterion} == {
        "correctness": (-0.25, 4), "efficiency": (-0.25, 4)}  # step deltas 0, −0.6, 0, −0.4
    assert [(s.baseline, s.candidate, s.n) for s in c.category_shift] == [("not_low", "reasoning_failure", 1)]
    assert c.category_shift_n == 1


def test_min_delta_decides_what_changed_and_the_gate(runs: dict[str, Path]) -> None:
    c = compare_runs(runs["base"], runs["worse"], gate=GateOptions(min_delta=0.25, fail_on_regression=True)).comparison
    assert c.regressed == ["a.json"] and c.unchanged == ["b.json"]
    assert c.gate.exit_code == 0
    fired = compare_runs(runs["base"], runs["worse"], gate=GateOptions(fail_on_regression=True)).comparison.gate
    assert fired.exit_code == 1 and fired.fired[0].startswith("fail_on_regression: delta -0.2500")


def test_the_interval_is_seeded(runs: dict[str, Path]) -> None:
    first = compare_runs(runs["base"], runs["worse"], ComparisonOptions(seed=3, resamples=500)).comparison
    second = compare_runs(runs["base"], runs["worse"], ComparisonOptions(seed=3, resamples=500)).comparison
    assert first.interval == second.interval and first.resamples == 500


def test_renamed_files_pair_by_task_text_and_missing_roots_are_listed(runs: dict[str, Path]) -> None:
    c = compare_runs(runs["base"], runs["renamed"]).comparison
    (pair,) = c.pairs
    assert (pair.id, pair.candidate_root, pair.matched_by) == ("a.json", "z.json", "task_hash")
    assert c.pairing == {"trajectory_id": 0, "session_id": 0, "relative_path": 0, "task_hash": 1}
    assert c.only_in_baseline == ["b.json"] and c.only_in_candidate == ["c.json"]
    assert pair.delta == pytest.approx(-0.3) and c.n == 1


def test_a_failed_node_is_its_own_outcome_not_a_score(runs: dict[str, Path]) -> None:
    c = compare_runs(runs["base"], runs["failed"], gate=GateOptions(fail_on_regression=True)).comparison
    pairs = {p.id: p for p in c.pairs}
    assert pairs["a.json"].outcome == "failed_in_candidate" and pairs["a.json"].delta is None
    assert c.unscored == ["a.json"] and c.n == 1 and c.unchanged == ["b.json"]
    assert [p.id for p in c.pairs][-1] == "a.json"  # unscored pairs last
    assert c.protocol_errors["candidate"].failed_steps == 1 and c.protocol_errors["candidate"].failed_nodes == 1
    assert c.protocol_errors["candidate"].http_errors >= 1 and c.protocol_errors["baseline"].failed_steps == 0
    assert c.gate.exit_code == 0  # b is unchanged; one pair is not enough to call a regression and none fell
    reverse = compare_runs(runs["failed"], runs["base"]).comparison
    assert {p.id: p.outcome for p in reverse.pairs}["a.json"] == "failed_in_baseline"


def test_subagents_are_matched_down_the_tree(runs: dict[str, Path]) -> None:
    c = compare_runs(runs["sub_base"], runs["sub_cand"]).comparison
    (pair,) = c.pairs
    nodes = {n.node: n for n in pair.nodes}
    assert set(nodes) == {"", "::sub-1"}
    assert nodes[""].delta == 0.0 and nodes["::sub-1"].delta == pytest.approx(0.4)  # own 0.4 → 0.8
    # hierarchical: the root's aggregate weighs its own 2 steps and the subagent's 2: (0.8·2 + 0.8·2) / 4 − 0.6
    assert pair.aggregate_delta == pytest.approx(0.2) and pair.delta == pytest.approx(0.2)
    assert c.subagent_aggregation == "hierarchical" and c.improved == ["s.json"]


def test_a_different_judge_is_refused_by_name_unless_allowed(runs: dict[str, Path]) -> None:
    with pytest.raises(InputError) as refused:
        compare_runs(runs["base"], runs["other_model"])
    assert refused.value.code == "not_comparable"
    assert refused.value.message == ("runs are not comparable: judge.model differs: baseline 'scripted', candidate "
                                     "'another-judge' (--allow-different judge.model compares them anyway)")
    c = compare_runs(runs["base"], runs["other_model"], ComparisonOptions(allow_different=("judge.model",))).comparison
    assert not c.comparable
    assert [(d.field, d.baseline, d.candidate) for d in c.allowed_differences] == [
        ("judge.model", "scripted", "another-judge")]


def test_an_unknown_field_cannot_be_allowed(runs: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="--allow-different judge_model: not a guarded field"):
        compare_runs(runs["base"], runs["base"], ComparisonOptions(allow_different=("judge_model",)))


def test_a_folder_whose_manifest_does_not_verify_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    tampered = tmp_path / "tampered"
    shutil.copytree(runs["base"], tampered)
    results = tampered / "evaluation_results.json"
    results.write_bytes(results.read_bytes().replace(b'"own_score": 0.7', b'"own_score": 0.9'))
    with pytest.raises(InputError) as refused:
        compare_runs(runs["base"], tampered)
    assert refused.value.code == "incomplete_run" and "evaluation_results.json" in refused.value.message
    (tampered / "manifest.json").unlink()
    with pytest.raises(InputError, match=r"no manifest\.json"):
        compare_runs(tampered, runs["base"])
    with pytest.raises(InputError, match=r"baseline .*: not a folder"):
        compare_runs(tmp_path / "absent", runs["base"])


def test_merged_shards_compare_equal_to_the_whole_run(runs: dict[str, Path], tmp_path: Path) -> None:
    from tracegrade.cli._app import app, run_app

    merged = tmp_path / "merged"
    assert run_app(app, ["merge", str(runs["shard0"]), str(runs["shard1"]), "-o", str(merged), "-q"]) == 0
    c = compare_runs(runs["whole"], merged).comparison
    assert c.n == 2 and c.mean_delta == 0.0 and c.only_in_baseline == c.only_in_candidate == []


def test_an_evalhub_job_folder_is_read_through_its_results_folder(runs: dict[str, Path], tmp_path: Path) -> None:
    job = tmp_path / "job"
    shutil.copytree(runs["worse"], job / "results")
    c = compare_runs(runs["base"], job).comparison
    assert c.candidate.layout == "evalhub_job" and c.baseline.layout == "run_folder"
    assert c.mean_delta == pytest.approx(-0.25)


def test_runs_of_two_endpoints_are_compared_with_a_warning_naming_both(runs: dict[str, Path], tmp_path: Path) -> None:
    from tracegrade.atif.output import comparison_lines
    from tracegrade.judge import endpoint_identity

    with ScriptedJudgeServer(marker_rule) as one, ScriptedJudgeServer(marker_rule) as two:
        base, cand = judged(one, tmp_path / "one", BASE), judged(two, tmp_path / "two", BASE)
    c = compare_runs(base, cand).comparison
    assert c.comparable and c.mean_delta == 0.0  # the model name makes runs comparable
    assert c.warnings == [f"judge endpoints differ: baseline {endpoint_identity(one.base_url)}, candidate "
                          f"{endpoint_identity(two.base_url)} (one model name may be served by different models)"]
    lines = comparison_lines(c)
    assert any(line.startswith("warning: judge endpoints differ") for line in lines)
    assert all(len(line) <= 80 for line in lines)
    assert compare_runs(runs["base"], runs["again"]).comparison.warnings == []


def test_a_pair_that_passed_and_could_not_be_scored_on_the_candidate_is_a_new_failure(runs: dict[str, Path]) -> None:
    gate = GateOptions(fail_on_new_failures=True)
    c = compare_runs(runs["base"], runs["failed"], gate=gate).comparison
    assert {p.id: p.outcome for p in c.pairs}["a.json"] == "failed_in_candidate"
    assert c.newly_failing == ["a.json"] and c.gate.exit_code == 1
    assert c.gate.fired == ["fail_on_new_failures: 1 newly failing (a.json)"]
    reverse = compare_runs(runs["failed"], runs["base"], gate=gate).comparison  # unscorable before: not a new failure
    assert reverse.newly_failing == [] and reverse.gate.exit_code == 0


def test_flat_aggregation_divides_each_side_by_its_own_scored_nodes(tmp_path: Path) -> None:
    import orjson

    def own_scores(run: Path) -> list[float]:
        nodes = orjson.loads((run / "evaluation_results.json").read_bytes())["nodes"]
        return [n["own_score"] for n in nodes if n["status"] == "scored"]

    flat = ("--subagent-aggregation", "flat")
    with ScriptedJudgeServer(marker_rule) as server:  # the baseline's tree scores 2 nodes, the candidate's 1
        base = judged(server, tmp_path / "b", {"s.json": _with_subagent("0.2")}, *flat)
        cand = judged(server, tmp_path / "c", {"s.json": trajectory("task s SCORE:0.8", "SCORE:0.4")}, *flat)
    base_own, cand_own = own_scores(base), own_scores(cand)
    assert (len(base_own), len(cand_own)) == (2, 1)
    c = compare_runs(base, cand, ComparisonOptions(allow_different=("criteria_hash",))).comparison
    (pair,) = c.pairs
    assert pair.baseline_score == pytest.approx(sum(base_own) / 2)
    assert pair.candidate_score == pytest.approx(cand_own[0])  # not its total over the baseline's 2 nodes
    assert pair.delta == pytest.approx(cand_own[0] - sum(base_own) / 2) == c.mean_delta
    assert c.candidate_score == pytest.approx(cand_own[0]) and c.subagent_aggregation == "flat"
    reverse = compare_runs(cand, base, ComparisonOptions(allow_different=("criteria_hash",))).comparison
    assert reverse.mean_delta == pytest.approx(-c.mean_delta)
