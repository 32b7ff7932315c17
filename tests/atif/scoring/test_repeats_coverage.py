"""``--judge-repeats`` spread: the run score's interval covers the planted score, and each step's spread
recovers the planted noise of the judge."""

from __future__ import annotations

import random
import statistics

from tests.atif.agree_data import node, step
from tests.atif.coverage import assert_covers
from tracegrade.atif.scoring._repeats import repeat_summary, step_repeats

NOISE = 0.1
"""Each verdict is the step's true quality plus uniform noise in ±0.1 (variance 0.01 / 3)."""


def verdicts(quality: float, rng: random.Random, repeats: int = 3) -> list[float]:
    return [quality + rng.uniform(-NOISE, NOISE) for _ in range(repeats)]


def test_the_run_score_interval_covers_the_planted_score() -> None:
    runs, covered = 250, 0
    for seed in range(runs):
        rng = random.Random(seed)
        means = [rng.uniform(0.4, 0.6) for _ in range(5)]  # each node's planted mean step quality
        nodes = [node(f"n{k}.json", [step(i, statistics.fmean(verdicts(rng.uniform(mu - 0.25, mu + 0.25), rng)))
                                     for i in range(1, 31)]) for k, mu in enumerate(means)]
        overall = statistics.fmean(n.own_score for n in nodes if n.own_score is not None)
        interval = repeat_summary(nodes, overall, "flat", 3, resamples=2000, seed=seed).overall_score_interval
        assert interval.low is not None and interval.high is not None
        covered += interval.low <= statistics.fmean(means) <= interval.high
    assert_covers(covered, runs)


def test_the_spread_of_a_steps_verdicts_recovers_the_planted_noise() -> None:
    rng = random.Random(2)
    variances = [step_repeats(verdicts(rng.uniform(0.2, 0.8), rng), [None, 1, 2], 0.5).std ** 2 for _ in range(3000)]
    planted = (2 * NOISE) ** 2 / 12
    error = statistics.stdev(variances) / len(variances) ** 0.5
    assert abs(statistics.fmean(variances) - planted) < 4 * error  # the sample variance (n - 1) is unbiased
