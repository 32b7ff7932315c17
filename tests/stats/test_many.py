from __future__ import annotations

import numpy as np
import pytest

from tracegrade.stats import paired_bootstrap_ci, paired_bootstrap_many


def test_many_measures_match_one_at_a_time_with_the_same_seed() -> None:
    rng = np.random.default_rng(3)
    groups = [f"case-{i // 3}" for i in range(300)]
    a, b = rng.random(300), rng.random(300)
    c, d = (rng.random(300) > 0.5).astype(float), (rng.random(300) > 0.4).astype(float)
    many = paired_bootstrap_many({"x": (a, b, groups), "y": (c, d, groups)}, resamples=500, seed=11)
    for name, (cand, base) in {"x": (a, b), "y": (c, d)}.items():
        one = paired_bootstrap_ci(cand, base, groups=groups, resamples=500, seed=11)
        got = many[name]
        assert got.n == one.n == 100 and got.estimate == pytest.approx(one.estimate)
        assert got.low == pytest.approx(one.low, abs=1e-12) and got.high == pytest.approx(one.high, abs=1e-12)


def test_measures_over_different_units_are_bootstrapped_separately() -> None:
    many = paired_bootstrap_many({
        "all": ([1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0], ["a", "b", "c", "d"]),
        "some": ([1.0, 1.0], [0.0, 0.0], ["a", "b"]),
        "one": ([1.0], [0.0], ["a"]),
    }, resamples=200)
    assert many["all"].n == 4 and many["some"].n == 2
    assert many["some"].low == many["some"].high == pytest.approx(1.0)
    assert many["one"].estimate == 1.0 and many["one"].low is None and many["one"].n == 1
    assert list(many) == ["all", "some", "one"]


def test_fourteen_measures_over_5000_grouped_cases_each_get_an_interval() -> None:
    # the work is bounded by counts; its speed is measured in benchmarks/bench_wall_clock.py
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(5_000), 2).tolist()
    samples = {f"m{i}": (rng.random(10_000), rng.random(10_000), groups) for i in range(14)}
    result = paired_bootstrap_many(samples, resamples=500)
    assert list(result) == list(samples)
    assert all(r.n == 5_000 and r.low is not None and r.low <= r.estimate <= r.high for r in result.values())


@pytest.mark.parametrize("shape", ["pass_rates", "differences", "uneven_groups"])
def test_integer_measures_give_the_same_floats_as_the_matrix_products(shape: str) -> None:
    """Integer totals take the packed path: same draws, bit-identical means (reports keep their bytes)."""
    from tracegrade.stats._many import _packing, _resampled_float_means, _resampled_means

    rng = np.random.default_rng(5)
    units = 3_001
    counts = np.column_stack([np.full(units, 10.0), np.ones(units)])
    if shape == "uneven_groups":
        counts = rng.integers(1, 7, size=(units, 2)).astype(np.float64)
    sums = np.column_stack([rng.integers(0, 11, units), rng.integers(0, 2, units)]).astype(np.float64)
    if shape == "differences":
        sums = sums - np.column_stack([rng.integers(0, 11, units), rng.integers(0, 2, units)])
    assert _packing(sums, counts) is not None
    fast = _resampled_means(sums, counts, resamples=700, seed=9)
    slow = _resampled_float_means(sums, counts, resamples=700, seed=9)
    assert fast.shape == slow.shape == (700, 2) and np.array_equal(fast, slow)


def test_fractional_or_huge_totals_keep_the_matrix_products() -> None:
    from tracegrade.stats._many import _packing

    ones = np.ones((4, 1))
    assert _packing(np.array([[0.5], [1.0], [0.0], [1.0]]), ones) is None
    assert _packing(np.array([[2.0**52], [1.0], [0.0], [1.0]]), ones) is None
    assert _packing(np.array([[1.0], [2.0], [0.0], [1.0]]), ones) is not None


def test_unit_totals_give_the_intervals_of_their_pairs_bit_for_bit() -> None:
    """Pass counts per source case (what a suite report has) stand for every 0/1 pair, in unit order."""
    from tracegrade.stats import unit_bootstrap_many

    rng = np.random.default_rng(8)
    sizes = rng.integers(1, 12, size=2_000)
    groups = [f"case-{u}" for u, size in enumerate(sizes) for _ in range(size)]
    passed = (rng.random(len(groups)) < 0.7).astype(float)
    pairs = paired_bootstrap_many({"rate": (passed, np.zeros(len(groups)), groups)}, resamples=300, seed=4)
    ends = np.cumsum(sizes)
    sums = [int(passed[end - size:end].sum()) for end, size in zip(ends, sizes, strict=True)]
    units = unit_bootstrap_many({"rate": (list(dict.fromkeys(groups)), sums, sizes.tolist())}, resamples=300,
                                seed=4)
    assert units == pairs
    assert unit_bootstrap_many({"none": ([], [], [])})["none"].estimate is None
    with pytest.raises(ValueError, match="one entry per unit"):
        unit_bootstrap_many({"bad": (["a"], [1, 2], [1])})


@pytest.mark.parametrize("units", [1, 7, 3_001, 2**31 - 1])
def test_int64_draws_are_the_int32_draws(units: int) -> None:
    """The packed path draws int64 indices (no conversion when gathering); its resamples must stay the same."""
    narrow, wide = np.random.default_rng(3), np.random.default_rng(3)
    for rows, size in [(3, 5), (1, 7), (4, 3)]:  # calls of odd sizes in turn, as chunks are drawn
        assert np.array_equal(narrow.integers(0, units, size=(rows, size), dtype=np.int32),
                              wide.integers(0, units, size=(rows, size), dtype=np.int64))
