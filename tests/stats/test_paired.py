from __future__ import annotations

import itertools

import numpy as np
import pytest

from tracegrade.stats import (
    Interval,
    PairedUnits,
    compare_paired,
    pair_changes,
    paired_bootstrap_ci,
    paired_ratio_bootstrap,
)

# A worked signed-rank example: ten paired measurements, one tie at zero (dropped) and one tied |difference|.
BEFORE = [110, 122, 125, 120, 140, 124, 123, 137, 135, 145]
AFTER = [125, 115, 130, 140, 140, 115, 140, 125, 140, 135]


def _units(base: list[float], cand: list[float], **extra: object) -> PairedUnits:
    return PairedUnits(ids=[f"t{i}" for i in range(len(base))], baseline=base, candidate=cand, **extra)  # type: ignore[arg-type]


def test_wilcoxon_matches_the_worked_example() -> None:
    # differences 15 -7 5 20 0 -9 17 -12 5 -10; the zero is dropped (n = 9); the two 5s share rank 1.5.
    # W+ = 7 + 1.5 + 9 + 8 + 1.5 = 27, W- = 3 + 4 + 6 + 5 = 18, W = min = 18. The exact two-sided p is the
    # share of the 2^9 equally likely sign patterns whose W+ lies at least |27 − 22.5| from its mean 22.5.
    result = compare_paired(_units(BEFORE, AFTER))
    ranks = [7, 3, 1.5, 9, 4, 8, 6, 1.5, 5]
    extreme = sum(abs(sum(r for r, up in zip(ranks, signs, strict=True) if up) - 22.5) >= 4.5
                  for signs in itertools.product([False, True], repeat=9))
    assert (result.wilcoxon.statistic, result.wilcoxon.n) == (18.0, 9)
    assert result.p_value == pytest.approx(extreme / 512) == 0.6328125


def test_wilcoxon_small_exact_case() -> None:
    # four pairs up, the smallest one down: W = 1; P(W <= 1) = 2/32 ({} and {1}), two-sided 0.125.
    result = compare_paired(_units([0.0] * 5, [0.5, 0.4, 0.3, 0.2, -0.1]))
    assert (result.wilcoxon.statistic, result.wilcoxon.n, result.p_value) == (1.0, 5, pytest.approx(0.125))


def test_hand_computed_deltas_and_changes() -> None:
    result = compare_paired(_units([0.5, 0.8, 0.6, 0.9], [0.7, 0.8, 0.55, 0.4]), min_delta=0.1)
    assert result.n == 4
    assert result.baseline_score == pytest.approx(0.7) and result.candidate_score == pytest.approx(0.6125)
    assert result.mean_delta == pytest.approx(-0.0875)  # (0.2 + 0 − 0.05 − 0.5) / 4
    assert (result.improved, result.regressed, result.unchanged) == (["t0"], ["t3"], ["t1", "t2"])


def test_min_delta_boundary_is_unchanged() -> None:
    result = compare_paired(_units([0.5, 0.5], [0.6, 0.4]), min_delta=0.1)
    assert result.unchanged == ["t0", "t1"]


def test_newly_failing_and_passing_come_from_the_pass_flags() -> None:
    units = _units([0.6, 0.4, 0.7, 0.2], [0.4, 0.6, 0.7, 0.3], baseline_passed=[True, False, True, None],
                   candidate_passed=[False, True, True, False])
    result = compare_paired(units)
    assert (result.newly_failing, result.newly_passing) == (["t0"], ["t1"])


def test_a_run_against_itself_has_no_change() -> None:
    values = [0.1, 0.5, 0.9, 0.3]
    result = compare_paired(_units(values, values))
    assert result.mean_delta == 0.0 and (result.interval.low, result.interval.high) == (0.0, 0.0)
    assert result.improved == [] and result.regressed == [] and len(result.unchanged) == 4
    assert result.p_value is None and result.wilcoxon.n == 0


def test_with_unit_counts_it_is_the_paired_bootstrap_of_the_mean_difference() -> None:
    rng = np.random.default_rng(1)
    base, cand = rng.uniform(size=60), rng.uniform(size=60)
    ours = paired_ratio_bootstrap(_units(list(base), list(cand)), seed=5)
    theirs = paired_bootstrap_ci(cand, base, seed=5)
    assert ours.estimate == pytest.approx(theirs.estimate)
    assert (ours.low, ours.high) == pytest.approx((theirs.low, theirs.high))


def test_ratio_bootstrap_agrees_with_a_plain_loop_over_the_same_draws() -> None:
    rng = np.random.default_rng(2)
    base_n, cand_n = rng.integers(1, 4, size=25).astype(float), rng.integers(1, 4, size=25).astype(float)
    base, cand = rng.uniform(size=25) * base_n, rng.uniform(size=25) * cand_n
    units = PairedUnits(ids=[str(i) for i in range(25)], baseline=list(base), candidate=list(cand),
                        baseline_counts=list(base_n), candidate_counts=list(cand_n))
    result = paired_ratio_bootstrap(units, resamples=500, seed=9)
    draws = np.random.default_rng(9).integers(0, 25, size=(500, 25), dtype=np.int32)
    loop = [cand[d].sum() / cand_n[d].sum() - base[d].sum() / base_n[d].sum() for d in draws]
    low, high = np.percentile(loop, [2.5, 97.5])
    assert result.estimate == pytest.approx(cand.sum() / cand_n.sum() - base.sum() / base_n.sum())
    assert (result.low, result.high) == pytest.approx((low, high))
    assert result == paired_ratio_bootstrap(units, resamples=500, seed=9)  # seeded, reproducible


def test_ratio_bootstrap_agrees_with_scipy_bootstrap() -> None:
    from scipy import stats as scipy_stats

    rng = np.random.default_rng(4)
    base = rng.uniform(0.3, 0.9, size=80)
    cand = np.clip(base + rng.normal(-0.05, 0.1, size=80), 0, 1)
    ours = paired_ratio_bootstrap(_units(list(base), list(cand)), resamples=20000, seed=3)
    theirs = scipy_stats.bootstrap((cand, base), lambda c, b: np.mean(c - b), paired=True, vectorized=False,
                                   n_resamples=20000, method="percentile", random_state=11).confidence_interval
    assert ours.low == pytest.approx(theirs.low, abs=0.004)
    assert ours.high == pytest.approx(theirs.high, abs=0.004)


def test_too_few_pairs_give_no_bounds() -> None:
    assert paired_ratio_bootstrap(_units([], [])) == Interval(None, None, None, 0, 0.95)
    assert paired_ratio_bootstrap(_units([0.2], [0.5])) == Interval(pytest.approx(0.3), None, None, 1, 0.95)  # type: ignore[arg-type]
    empty = compare_paired(_units([], []))
    assert empty.n == 0 and empty.mean_delta is None and empty.p_value is None


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        paired_ratio_bootstrap(_units([0.1, 0.2], [0.1]))
    with pytest.raises(ValueError, match="positive count"):
        paired_ratio_bootstrap(PairedUnits(["a"], [0.1], [0.1], baseline_counts=[0]))
    with pytest.raises(ValueError, match="min_delta"):
        compare_paired(_units([0.1], [0.1]), min_delta=-1)


def test_pair_changes_name_each_unit_s_outcome_biggest_regression_first() -> None:
    units = PairedUnits(ids=["a", "b", "c"], baseline=[0.5, 0.5, 0.5], candidate=[1.0, 0.0, 0.5])
    changes = pair_changes(compare_paired(units), [("a", 0.5, 1.0), ("b", 0.5, 0.0), ("c", 0.5, 0.5)])
    assert [(p.id, p.outcome, p.delta) for p in changes] == [
        ("b", "regressed", -0.5), ("c", "unchanged", 0.0), ("a", "improved", 0.5)]
