from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracegrade.dabench import RunRows, compare_runs
from tracegrade.errors import InputError
from tracegrade.stats import GateOptions


def run(name: str, scores: dict[str, float | None], **parameters: Any) -> RunRows:
    rows = tuple({"task_id": t, "final_score": s} for t, s in scores.items())
    return RunRows(name, Path(name), rows, 0.8, {"lam": 0.5, "success_threshold": 0.8, **parameters})


A = run("A", {"t1": 0.2, "t2": 0.5, "t3": 1.0, "t4": 0.0, "t5": 0.4, "only_a": 1.0, "t6": None})
B = run("B", {"t1": 0.9, "t2": 0.5, "t3": 0.8, "t4": 0.6, "t5": 1.0, "only_b": 0.0, "t6": 1.0})


def test_pairs_by_task_and_names_what_it_leaves_out() -> None:
    c = compare_runs(A, B)
    assert c.n == 5 and c.only_in_baseline == ["only_a"] and c.only_in_candidate == ["only_b"]
    assert c.unscored == ["t6"] and [p.id for p in c.pairs] == ["t3", "t2", "t4", "t5", "t1"]  # worst first
    assert c.improved == ["t1", "t4", "t5"] and c.regressed == ["t3"] and c.unchanged == ["t2"]
    assert c.baseline_score == pytest.approx(0.42) and c.candidate_score == pytest.approx(0.76)
    assert c.accuracy_baseline == pytest.approx(0.2) and c.accuracy_candidate == pytest.approx(0.6)
    assert c.newly_failing == [] and c.newly_passing == ["t1", "t5"]  # success threshold 0.8; t3 ends at 0.8
    assert (c.baseline.run_id, c.candidate.run_id, c.primary) == ("A", "B", "final_score")


def test_paired_statistics_by_hand() -> None:
    c = compare_runs(A, B)
    differences = [0.7, 0.0, -0.2, 0.6, 0.6]
    mean = sum(differences) / 5
    sd = (sum((d - mean) ** 2 for d in differences) / 4) ** 0.5
    assert c.mean_delta == pytest.approx(mean) and c.cohens_d == pytest.approx(mean / sd)
    # non-zero |d| ranks: 0.2→1, 0.6→2.5, 0.6→2.5, 0.7→4; W = min(R+, R−) = min(9, 1)
    assert c.wilcoxon.statistic == 1.0 and c.wilcoxon.n == 4
    low, high = c.interval.low, c.interval.high
    assert low is not None and high is not None and low <= mean <= high


def test_the_gate_and_min_delta() -> None:
    assert compare_runs(A, B, gate=GateOptions(fail_on_regression=True)).gate.exit_code == 0  # B is better
    fired = compare_runs(B, A, gate=GateOptions(fail_on_regression=True, fail_on_new_failures=True)).gate
    assert fired.exit_code == 1 and fired.fired[1] == "fail_on_new_failures: 2 newly failing (t1, t5)"
    assert fired.fired[0].startswith("fail_on_regression: delta -0.340 below -min_delta (0) and the 95% interval's "
                                     "upper bound -0.020 < 0")  # three places, as the table shows them
    wide = compare_runs(A, B, gate=GateOptions(min_delta=0.6))
    assert wide.improved == ["t1"] and wide.regressed == [] and len(wide.unchanged) == 4


def test_refusals_of_an_unfair_comparison() -> None:
    with pytest.raises(InputError, match="task sets"):
        compare_runs(A, B, strict=True)
    with pytest.raises(InputError, match="lam"):
        compare_runs(A, run("C", {"t1": 1.0}, lam=0.25))
    with pytest.raises(InputError, match="no task with final_score"):
        compare_runs(A, run("D", {"other": 1.0}))


def test_unknown_metric_is_named() -> None:
    with pytest.raises(InputError, match="--metric nope: not a task_metrics column"):
        compare_runs(A, B, metric="nope")


def test_a_score_exactly_at_the_success_threshold_counts_as_correct_on_both_sides() -> None:
    c = compare_runs(run("A", {"t1": 0.8, "t2": 0.79}), run("B", {"t1": 0.79, "t2": 0.8}))
    assert (c.accuracy_baseline, c.accuracy_candidate) == (0.5, 0.5)


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 1e308, 1.5])
def test_a_score_that_is_not_a_finite_number_in_its_range_is_bad_input(value: float) -> None:
    with pytest.raises(InputError, match=r"B: task t1: final_score = .* is not in \[0, 1\]"):
        compare_runs(A, run("B", {"t1": value, "t2": 0.5}))
    huge = RunRows("H", Path("H"), ({"task_id": "t1", "final_score": 0.5, "total_tokens": 1e308},), 0.8, {})
    with pytest.raises(InputError, match="total_tokens = 1e\\+308 is not finite, at most 1e\\+12"):
        compare_runs(huge, huge, metric="total_tokens")


def test_an_unhealthy_run_is_refused_unless_allowed_and_missing_artefacts_are_left_out() -> None:
    sick = RunRows("S", Path("S"), B.rows, 0.8, B.parameters,
                   {"report": {"harness_health": "UNHEALTHY", "harness_score": 5.1},
                    "named_files_missing": {"prediction.csv": ["t1", "only_b"]}})
    with pytest.raises(InputError, match=r"S: harness health UNHEALTHY \(5.1/10\).*--allow-unhealthy") as caught:
        compare_runs(A, sick)
    assert caught.value.code == "unhealthy_run"
    c = compare_runs(A, sick, allow_unhealthy=True)
    assert c.unhealthy_allowed and c.candidate.health == "UNHEALTHY" and c.missing_artefact == ["t1"]
    assert c.n == 4 and "t1" not in [p.id for p in c.pairs]
