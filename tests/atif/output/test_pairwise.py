"""Pairwise outcomes, rates, the gate and the files, against hand-computed values."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tracegrade.atif.output._pairwise import (
    Answer,
    PairVerdict,
    PairwiseComparison,
    Rate,
    pair_outcome,
    pairwise_gate,
    pairwise_lines,
    summarise_pairs,
    write_pairwise,
)
from tracegrade.stats import GateOptions


def test_an_answer_that_flips_with_the_order_is_position_bias() -> None:
    assert pair_outcome("candidate", "candidate") == "win"
    assert pair_outcome("baseline", "baseline") == "loss"
    assert pair_outcome("tie", "tie") == "tie"
    assert pair_outcome("baseline", "candidate") == "position_bias"
    assert pair_outcome("tie", "candidate") == "position_bias"
    assert pair_outcome(None, "tie") == "error"


def _pair(i: int, outcome: str) -> PairVerdict:
    return PairVerdict(id=f"<p{i}>", candidate_root=f"p{i}", matched_by="trajectory_id", outcome=outcome,  # type: ignore[arg-type]
                       answers=[Answer(order="baseline_first", choice=None, reason="a <b>reason</b>")])


def test_hand_computed_rates() -> None:
    pairs = [_pair(i, o) for i, o in enumerate(["win"] * 5 + ["loss"] * 2 + ["tie"] * 2 + ["position_bias", "error"])]
    summary = summarise_pairs(pairs, resamples=500, level=0.95, seed=0)
    assert summary["n"] == 10 and summary["counts"]["error"] == 1
    assert summary["win_rate"].value == 0.5 and summary["loss_rate"].value == 0.2
    assert summary["position_bias_rate"].value == 0.1 and summary["net_win_rate"].value == pytest.approx(0.3)
    assert summary["sign_test_p"] == pytest.approx(2 * (1 + 7 + 21) / 128)  # P(X <= 2), X ~ Bin(7, 1/2), twice


def test_the_regression_gate_reads_the_net_win_rate_interval() -> None:
    below = Rate(value=-0.4, low=-0.7, high=-0.1, n=10)
    touching = Rate(value=-0.4, low=-0.7, high=0.0, n=10)
    on = GateOptions(fail_on_regression=True)
    assert pairwise_gate(below, 0, on).exit_code == 1
    assert pairwise_gate(touching, 0, on).exit_code == 0
    assert pairwise_gate(below, 0, GateOptions(fail_on_regression=True, min_delta=0.5)).exit_code == 0
    assert pairwise_gate(Rate(value=None, low=None, high=None, n=0), 0, on).exit_code == 1
    assert pairwise_gate(below, 0, GateOptions()).checked == []
    assert pairwise_gate(touching, 2, GateOptions(fail_on_new_failures=True)).exit_code == 1


def test_lines_and_files(tmp_path: Path) -> None:
    pairs = [_pair(0, "loss"), _pair(1, "win")]
    summary = summarise_pairs(pairs, resamples=50, level=0.95, seed=0)
    c = PairwiseComparison(
        baseline="a", candidate="b", judge={"model": "m"}, prompt_version="v", pairing={"trajectory_id": 2},
        only_in_baseline=[], only_in_candidate=[], **summary, resamples=50, level=0.95, seed=0,
        gate=pairwise_gate(summary["net_win_rate"], 1, GateOptions()), pairs=pairs, judge_calls={"requests": 4},
    )
    assert all(len(line) <= 80 for line in pairwise_lines(c))
    steps = {"<p0>": ([{"agent": "x", "source": "agent", "text": "<script>alert(1)</script>"}], [])}
    paths = write_pairwise(c, steps, tmp_path / "out")
    page = paths["comparison.html"].read_text()
    assert "<script>alert(1)" not in page and "&lt;p0&gt;" in page and "a &lt;b&gt;reason" in page
    assert orjson.loads(paths["comparison.json"].read_bytes())["format"] == "tracegrade.atif.pairwise_comparison/1"
