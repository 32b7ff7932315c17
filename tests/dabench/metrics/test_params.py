from __future__ import annotations

import pytest
from pydantic import ValidationError

from tracegrade.dabench import MetricParams


def test_defaults_and_their_order_are_what_every_manifest_records() -> None:
    # the order and values feed the job id: a change here changes every run's id
    assert MetricParams().model_dump() == {
        "lam": 0.5,
        "success_threshold": 0.8,
        "max_replans": 3,
        "baseline_coordinator_calls": 3,
    }


@pytest.mark.parametrize(
    "bad",
    [
        {"lam": -0.1},
        {"lam": 10.5},
        {"max_replans": 0},
        {"success_threshold": 1.5},
        {"baseline_coordinator_calls": -1},
        {"lambda": 0.5},
    ],
)
def test_values_out_of_bounds_or_unknown_names_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValidationError):
        MetricParams.model_validate(bad)


def test_bounds_are_inclusive() -> None:
    assert MetricParams(lam=0, max_replans=1, success_threshold=1).lam == 0.0
    assert MetricParams(lam=10).lam == 10.0


def test_parameters_are_frozen() -> None:
    with pytest.raises(ValidationError):
        MetricParams().lam = 1.0  # type: ignore[misc]
