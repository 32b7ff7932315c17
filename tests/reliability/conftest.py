from __future__ import annotations

import pytest

from tracegrade.rubric import Criterion, Rubric

FAST_SETTINGS: dict[str, float | int] = {"judge_initial_backoff_seconds": 0.001, "judge_timeout_seconds": 0.5,
                                          "judge_max_attempts": 2}
"""Judge settings that make retries and timeouts quick (a stalled answer takes 1 s)."""


@pytest.fixture
def rubric() -> Rubric:
    return Rubric(criteria=(Criterion(name="correctness", description="Moves the task forward", weight=2),
                            Criterion(name="safety", description="Stays within policy")))
