from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.dabench.example import rows
from tracegrade.dabench import Resampling, RunRows
from tracegrade.dabench.analyses._research import (
    correlation_section,
    describe,
    metric_statistics_section,
    pairwise_rows,
)


def test_research_sections(example_report: dict[str, Any]) -> None:
    stats = {r["metric"]: r for r in rows(example_report, "metric-statistics")}
    assert stats["final_score"]["n"] == 3 and stats["final_score"]["pm"] == pytest.approx([2 / 3, 0.57735], abs=1e-5)
    assert stats["final_score"]["ci"] == [0.0, 1.0]
    assert stats["discovery_score"]["ci"] is None  # one value: no interval
    correlations = {(r["a"], r["b"]): r["r"] for r in rows(example_report, "correlations")}
    assert correlations[("final_score", "tool_efficiency")] == pytest.approx(0.866025, abs=1e-6)


def test_describe_gives_n_mean_sample_std_and_an_interval_inside_the_range() -> None:
    stats = describe([1.0, 2.0, 3.0, 6.0], Resampling(resamples=500))
    assert stats["n"] == 4 and stats["pm"] == pytest.approx([3.0, (14 / 3) ** 0.5])  # squares 4+1+0+9 over n − 1
    low, high = stats["ci"]  # type: ignore[misc]
    assert 1.0 <= low < 3.0 < high <= 6.0


def test_describe_of_one_value_has_no_spread_or_interval_and_of_none_no_mean() -> None:
    assert describe([0.5], Resampling()) == {"n": 1, "pm": [0.5, None], "ci": None}
    assert describe([], Resampling()) == {"n": 0, "pm": None, "ci": None}


def test_the_interval_is_reproducible_and_depends_on_the_seed() -> None:
    values = [0.0, 0.1, 0.4, 0.5, 0.9, 1.0, 0.3, 0.2]
    first = describe(values, Resampling(resamples=200, seed=1))["ci"]
    assert describe(values, Resampling(resamples=200, seed=1))["ci"] == first
    assert describe(values, Resampling(resamples=200, seed=2))["ci"] != first


def test_a_narrower_level_gives_a_narrower_interval() -> None:
    values = [0.0, 0.1, 0.4, 0.5, 0.9, 1.0, 0.3, 0.2]
    wide, narrow = (describe(values, Resampling(level=level))["ci"] for level in (0.95, 0.6))
    assert wide[0] < narrow[0] < narrow[1] < wide[1]  # type: ignore[index]


def test_statistics_section_names_its_level_resamples_and_seed() -> None:
    run = RunRows("r", Path("r"), ({"final_score": 1.0, "tool_efficiency": 0.5}, {"final_score": 0.0}))
    section = metric_statistics_section(run, Resampling(resamples=300, level=0.9, seed=7))
    assert [c.label for c in section.columns][-1] == "90% CI"
    assert section.notes[0] == "90% CI: percentile bootstrap of the mean, 300 resamples, seed 7; std: sample (n − 1)."
    assert "analyst_score" in section.notes[1] and "final_score" not in section.notes[1]
    by = {r["metric"]: r for r in section.rows}
    assert by["final_score"]["n"] == 2 and by["tool_efficiency"]["ci"] is None


def test_correlations_need_three_tasks_with_both_values() -> None:
    data = ({"final_score": 1.0, "analyst_score": 0.9}, {"final_score": 0.0, "analyst_score": 0.2},
            {"final_score": 0.5})
    assert pairwise_rows(data, ("final_score", "analyst_score")) == {("final_score", "analyst_score"): (None, 2)}
    more = (*data[:2], {"final_score": 0.5, "analyst_score": 0.55})
    r, n = pairwise_rows(more, ("final_score", "analyst_score"))[("final_score", "analyst_score")]
    assert n == 3 and r == pytest.approx(1.0)  # the three points lie on one line
    assert correlation_section(RunRows("r", Path("r"), ({"task_id": "t"},))).empty == (
        "no task has two of the key metrics"
    )
