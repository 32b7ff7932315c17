from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from tracegrade import stats
from tracegrade.atif.agreement._maths import Bootstrap, average_ranks, kappa_codes, kendall_tau_b, spearman_rho


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rank_correlations_equal_scipy_with_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 5, 40).astype(float), rng.integers(0, 4, 40).astype(float)
    assert spearman_rho(x, y) == pytest.approx(scipy_stats.spearmanr(x, y).statistic)
    assert kendall_tau_b(x, y) == pytest.approx(scipy_stats.kendalltau(x, y).statistic)
    assert average_ranks(x) == pytest.approx(scipy_stats.rankdata(x))


def test_correlations_are_none_when_undefined() -> None:
    assert spearman_rho(np.array([1.0]), np.array([2.0])) is None
    assert kendall_tau_b(np.array([1.0, 1.0]), np.array([2.0, 3.0])) is None


def test_vectorised_kappa_equals_the_stats_kappa_and_a_hand_value() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
    assert kappa_codes(a, b, 4) == pytest.approx(stats.cohens_kappa(list(a), list(b)))
    # po = 3/4; margins (2, 2) and (1, 3): pe = (2*1 + 2*3)/16 = 1/2 -> kappa = (3/4 - 1/2) / (1/2) = 0.5
    assert kappa_codes(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]), 2) == pytest.approx(0.5)
    assert kappa_codes(np.array([1, 1]), np.array([1, 1]), 2) is None


def test_bootstrap_keeps_a_trajectory_together() -> None:
    seen: list[int] = []

    def size(idx: np.ndarray) -> float:
        seen.append(idx.size)
        return float(idx.size)

    Bootstrap(50, 0.95, 0).estimate(["a", "a", "a", "b"], size)
    assert set(seen[1:]) <= {2, 4, 6}  # two draws among a (3 pairs) and b (1 pair)


def test_one_unit_gives_no_interval() -> None:
    estimate = Bootstrap(50, 0.95, 0).estimate(["a", "a"], lambda idx: 0.5)
    assert (estimate.value, estimate.low, estimate.high, estimate.units) == (0.5, None, None, 1)
