from __future__ import annotations

import pytest
from pydantic import ValidationError

from tracegrade.stats import GateOptions, PairedUnits, apply_gate, compare_paired


def _comparison(base: list[float], cand: list[float], **extra: object):  # type: ignore[no-untyped-def]
    units = PairedUnits(ids=[f"t{i}" for i in range(len(base))], baseline=base, candidate=cand, **extra)  # type: ignore[arg-type]
    return compare_paired(units)


WORSE = _comparison([0.8, 0.9, 0.7, 0.85], [0.5, 0.6, 0.4, 0.55])  # every pair −0.3: interval [−0.3, −0.3]


def test_the_gate_is_off_by_default() -> None:
    verdict = apply_gate(WORSE, GateOptions())
    assert (verdict.exit_code, verdict.fired, verdict.checked) == (0, [], [])


def test_a_clear_regression_fails_and_says_why() -> None:
    verdict = apply_gate(WORSE, GateOptions(fail_on_regression=True))
    assert verdict.exit_code == 1 and verdict.checked == ["fail_on_regression"]
    assert verdict.fired == ["fail_on_regression: delta -0.3000 below -min_delta (0) and the 95% interval's upper "
                             "bound -0.3000 < 0 (n=4)"]


def test_min_delta_tolerates_a_small_drop() -> None:
    assert apply_gate(WORSE, GateOptions(fail_on_regression=True, min_delta=0.3)).exit_code == 0
    assert apply_gate(WORSE, GateOptions(fail_on_regression=True, min_delta=0.29)).exit_code == 1


def test_an_interval_reaching_zero_does_not_fail() -> None:
    mixed = _comparison([0.5, 0.5, 0.5, 0.5], [0.2, 0.6, 0.3, 0.55])
    assert mixed.interval.high is not None and mixed.interval.high >= 0
    assert apply_gate(mixed, GateOptions(fail_on_regression=True)).exit_code == 0


def test_an_identical_run_passes_every_rule() -> None:
    same = _comparison([0.3, 0.7], [0.3, 0.7], baseline_passed=[False, True], candidate_passed=[False, True])
    verdict = apply_gate(same, GateOptions(fail_on_regression=True, fail_on_new_failures=True))
    assert verdict.exit_code == 0 and verdict.checked == ["fail_on_regression", "fail_on_new_failures"]


def test_new_failures_fail_when_asked() -> None:
    flipped = _comparison([0.6, 0.7], [0.4, 0.7], baseline_passed=[True, True], candidate_passed=[False, True])
    assert apply_gate(flipped, GateOptions()).exit_code == 0
    verdict = apply_gate(flipped, GateOptions(fail_on_new_failures=True))
    assert verdict.fired == ["fail_on_new_failures: 1 newly failing (t0)"]


def test_too_few_pairs_fail_closed_unless_nothing_fell() -> None:
    one_drop = _comparison([0.9], [0.2])
    assert apply_gate(one_drop, GateOptions(fail_on_regression=True)).fired[0].startswith(
        "fail_on_regression: undecidable with 1 scored pair(s)")
    assert apply_gate(_comparison([], []), GateOptions(fail_on_regression=True)).exit_code == 1
    assert apply_gate(_comparison([0.2], [0.9]), GateOptions(fail_on_regression=True)).exit_code == 0


def test_min_delta_is_bounded() -> None:
    with pytest.raises(ValidationError):
        GateOptions(min_delta=-0.1)


@pytest.mark.parametrize("value", [float("inf"), float("nan"), float("-inf")])
def test_a_min_delta_that_is_not_finite_is_refused_so_the_gate_can_fire(value: float) -> None:
    with pytest.raises(ValidationError, match="finite"):
        GateOptions(min_delta=value)
    units = PairedUnits(ids=["a", "b"], baseline=[0.9, 0.9], candidate=[0.1, 0.1])
    with pytest.raises(ValueError, match="min_delta"):
        compare_paired(units, min_delta=value)


def test_few_pairs_are_a_warning_naming_n_the_interval_and_the_verdict() -> None:
    fired = apply_gate(WORSE, GateOptions(fail_on_regression=True))
    assert fired.warnings == ["only 4 scored pair(s) (95% interval [-0.3000, -0.3000]): under 10 pairs the interval "
                              "means little, and the gate fired on so few"]
    passed = apply_gate(_comparison([0.5] * 4, [0.2, 0.6, 0.3, 0.55]), GateOptions(fail_on_regression=True))
    assert passed.exit_code == 0 and passed.warnings[0].endswith("and the gate did not fire on so few")
    assert "no interval" in apply_gate(_comparison([0.9], [0.2]), GateOptions(fail_on_regression=True)).warnings[0]
    assert apply_gate(WORSE, GateOptions()).warnings == []  # the gate is off: nothing to warn about
    many = _comparison([0.8] * 10, [0.5] * 10)
    assert apply_gate(many, GateOptions(fail_on_regression=True)).warnings == []
