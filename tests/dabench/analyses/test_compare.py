from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracegrade.dabench import RunRows, compare_runs
from tracegrade.errors import InputError


def run(name: str, scores: dict[str, float | None], **parameters: Any) -> RunRows:
    rows = tuple({"task_id": t, "final_score": s} for t, s in scores.items())
    return RunRows(name, Path(name), rows, 0.8, {"lam": 0.5, "success_threshold": 0.8, **parameters})


A = run("A", {"t1": 0.2, "t2": 0.5, "t3": 1.0, "t4": 0.0, "t5": 0.4, "only_a": 1.0, "t6": None})
B = run("B", {"t1": 0.9, "t2": 0.5, "t3": 0.8, "t4": 0.6, "t5": 1.0, "only_b": 0.0, "t6": 1.0})


def test_pairs_by_task_and_names_what_it_leaves_out() -> None:
    c = compare_runs(A, B)
    assert c.pairs == 5 and c.only_in_a == ["only_a"] and c.only_in_b == ["only_b"] and c.unscored == ["t6"]
    assert c.improved == ["t1", "t4", "t5"] and c.regressed == ["t3"] and c.unchanged == 1
    assert c.mean_a == pytest.approx(0.42) and c.mean_b == pytest.approx(0.76)
    assert c.accuracy_a == pytest.approx(0.2) and c.accuracy_b == pytest.approx(0.6)


def test_paired_statistics_by_hand() -> None:
    c = compare_runs(A, B)
    differences = [0.7, 0.0, -0.2, 0.6, 0.6]
    mean = sum(differences) / 5
    sd = (sum((d - mean) ** 2 for d in differences) / 4) ** 0.5
    assert c.mean_difference == pytest.approx(mean) and c.cohens_d == pytest.approx(mean / sd)
    # non-zero |d| ranks: 0.2→1, 0.6→2.5, 0.6→2.5, 0.7→4; W = min(R+, R−) = min(9, 1)
    assert c.wilcoxon_statistic == 1.0 and c.wilcoxon_n == 4
    assert c.ci_low is not None and c.ci_high is not None and c.ci_low <= mean <= c.ci_high


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
    assert (c.accuracy_a, c.accuracy_b) == (0.5, 0.5)
