from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.dabench.example import rows as section_rows
from tracegrade.dabench import RunRows, ablation_sections
from tracegrade.dabench.analyses._ablation import efficiency_quartiles


def rows_of(pairs: list[tuple[float, float]]) -> tuple[dict[str, float], ...]:
    return tuple({"tool_efficiency": e, "final_score": s} for e, s in pairs)


def test_quartiles_cut_at_nearest_rank_percentiles() -> None:
    data = rows_of([(0.1, 0.0), (0.2, 0.1), (0.3, 0.2), (0.4, 0.3), (0.5, 0.4), (0.6, 0.5), (0.7, 0.6), (0.8, 1.0)])
    got = [(label, low, high, scores) for label, low, high, scores in efficiency_quartiles(data)]
    assert got == [
        ("Q1", 0.1, 0.2, [0.0, 0.1]),
        ("Q2", 0.2, 0.4, [0.2, 0.3]),
        ("Q3", 0.4, 0.6, [0.4, 0.5]),
        ("Q4", 0.6, 0.8, [0.6, 1.0]),
    ]


def test_verification_groups_and_mann_whitney() -> None:
    rows = (
        {"verification_triggered": 1, "final_score": 1.0},
        {"verification_triggered": 1, "final_score": 0.8},
        {"verification_triggered": 0, "final_score": 0.2},
        {"verification_triggered": 0, "final_score": 0.0},
    )
    verification, replanning, quartiles = ablation_sections(RunRows("r", Path("r"), rows))
    (critic,) = verification.rows
    assert (critic["n_a"], critic["mean_a"], critic["n_b"], critic["mean_b"]) == (2, 0.9, 2, 0.1)
    assert critic["u"] == 4.0  # every A above every B
    assert replanning.empty is not None and quartiles.empty is not None  # no data: one line, not zeros


def test_efficiency_quartiles_of_the_example(example_report: dict[str, Any]) -> None:
    quartiles = section_rows(example_report, "ablation-efficiency")
    assert [(q["quartile"], q["n"]) for q in quartiles] == [("Q1", 1), ("Q2", 1), ("Q3", 1), ("Q4", 0)]
