"""Benchmark: the speeds tests used to assert, measured here instead (tests never read the clock).

Usage: python benchmarks/bench_wall_clock.py [--repeats 3]

Times, as the median of the repeats: the paired bootstrap of 14 measures over 50,000 grouped cases
(2,000 resamples; the old test allowed 15 s), and the refusal of hostile nesting by the judge-answer
extractor (13,000 unclosed members and 65,536 open braces; the old test allowed 5 s).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Callable

import numpy as np

from tracegrade.errors import JudgeError
from tracegrade.judge import extract_json_object
from tracegrade.stats import paired_bootstrap_many


def bootstrap_many() -> None:
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(50_000), 2).tolist()
    samples = {f"m{i}": (rng.random(100_000), rng.random(100_000), groups) for i in range(14)}
    paired_bootstrap_many(samples, resamples=2000)


def hostile_nesting() -> None:
    for text in ('{"a":' * 13000, "{" * 65536):
        with contextlib.suppress(JudgeError):
            extract_json_object(text)


def median_seconds(work: Callable[[], None], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name, work, former in (("bootstrap 14 x 50,000", bootstrap_many, 15.0),
                               ("hostile nesting", hostile_nesting, 5.0)):
        print(f"{name}: {median_seconds(work, args.repeats):.2f} s (the old test bound: {former:g} s)")


if __name__ == "__main__":
    main()
