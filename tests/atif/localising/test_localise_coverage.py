"""The repeat-agreement figure of ``--judge-repeats`` recovers a planted agreement, with honest intervals."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from tests.atif.coverage import assert_covers
from tests.atif.helpers import write
from tests.atif.localising.plant import accurate, document, steps
from tracegrade.atif import LoadOptions, LocaliseOptions, load_trajectories, localise_loaded
from tracegrade.atif.localising._localise import mean_share, pair_agreement
from tracegrade.judge.testing import FakeJudge

STEPS = 10
P = 0.7
AGREEMENT = P**2 + (1 - P) ** 2 / (STEPS - 1)
"""Two answers agree when both name the planted step, or both the same one of the other nine."""


def test_localise_reports_the_planted_repeat_agreement(tmp_path: Path) -> None:
    for i in range(60):
        write(tmp_path / f"{i}.json", document(steps(STEPS + 1, plant=2 + i % STEPS)))  # STEPS after the user's
    loaded = load_trajectories([tmp_path], LoadOptions())
    judge = FakeJudge(accurate(P, random.Random(5)))
    results = asyncio.run(localise_loaded(loaded, LocaliseOptions(judge_repeats=3), judge, job_id="r"))
    share = results.summary.repeat_step_agreement
    assert share is not None and share.n == 60 and len(judge.requests) == 180
    assert share.low is not None and share.high is not None and share.low <= AGREEMENT <= share.high


def test_repeat_agreement_intervals_cover_the_planted_agreement() -> None:
    runs, covered = 250, 0
    for seed in range(runs):
        rng = random.Random(seed)
        per_trajectory = []
        for _ in range(40):
            answers = [0 if rng.random() < P else rng.randint(1, STEPS - 1) for _ in range(3)]
            per_trajectory.append(pair_agreement(answers))
        share = mean_share(per_trajectory)
        covered += share.low is not None and share.high is not None and share.low <= AGREEMENT <= share.high
    assert_covers(covered, runs)
