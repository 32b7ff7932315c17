from __future__ import annotations

import pytest
from pydantic import ValidationError

from tracegrade.dabench import Mode, Resampling
from tracegrade.dabench.analyses._params import ci_label


def test_each_mode_includes_the_less_detailed_ones() -> None:
    assert [m.value for m in Mode] == ["standard", "verbose", "research"]
    assert Mode.RESEARCH.includes(Mode.STANDARD) and Mode.RESEARCH.includes(Mode.VERBOSE)
    assert Mode.VERBOSE.includes(Mode.VERBOSE) and not Mode.VERBOSE.includes(Mode.RESEARCH)
    assert not Mode.STANDARD.includes(Mode.VERBOSE)


def test_resampling_defaults_are_those_every_report_states() -> None:
    assert Resampling().model_dump() == {"resamples": 2000, "level": 0.95, "seed": 0}


@pytest.mark.parametrize(
    "bad", [{"resamples": 99}, {"resamples": 100_001}, {"level": 0.5}, {"level": 1.0}, {"seed": -1}, {"other": 1}]
)
def test_resampling_out_of_bounds_is_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValidationError):
        Resampling.model_validate(bad)


def test_bounds_are_inclusive_for_resamples() -> None:
    assert Resampling(resamples=100).resamples == 100 and Resampling(resamples=100_000).resamples == 100_000


@pytest.mark.parametrize(("level", "label"), [(0.95, "95% CI"), (0.9, "90% CI"), (0.975, "97.5% CI"), (0.57, "57% CI")])
def test_ci_label_names_the_level_without_float_noise(level: float, label: str) -> None:
    assert ci_label(level) == label
