from __future__ import annotations

from pathlib import Path

import pytest

from tests.suites.helpers import saved_run, two_checks, write_dataset
from tracegrade.errors import ConfigError
from tracegrade.suites import (
    IntervalParameters,
    SuiteRunParameters,
    compare_reports,
    load_dataset,
    read_report,
    replay_report,
)


async def test_compare_classifies_attempts_and_recomputes_deltas(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, two_checks([1, 2, 3, 4]))
    base = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 0, 2: 3, 3: 4}, "base.json"))
    cand = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 2, 2: 0, 3: None}, "cand.json"))
    tampered = base.suites[0].model_copy(update={"check_pass_rate": 0.0})
    base = base.model_copy(update={"suites": [tampered]})  # saved aggregates are ignored
    result = compare_reports(cand, base, IntervalParameters(resamples=500))
    section = result.suites[0]
    assert section.changes.model_dump() == {"improved": 2, "regressed": 4, "mixed": 0, "unchanged": 2}
    delta = section.deltas["check_pass_rate"]
    assert (delta.candidate, delta.baseline) == (10 / 16, 14 / 16)
    assert delta.delta.estimate == pytest.approx(-4 / 16)
    assert delta.delta.n == 4 and delta.delta.low <= delta.delta.estimate <= delta.delta.high  # type: ignore[operator]
    assert section.deltas["failure_rate"].delta.estimate == pytest.approx(2 / 8)
    assert [(a.id, a.repetition, a.change, a.checks_down) for a in section.attempts[2:4]] == [
        ("c1", 1, "improved", []), ("c1", 2, "improved", [])]
    assert compare_reports(cand, base, IntervalParameters(resamples=500)) == result  # seeded: reproducible


async def test_compare_refuses_incompatible_reports(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, two_checks([1, 2]))
    base = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 2}, "base.json"))
    once = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 2}, "once.json", SuiteRunParameters()))
    with pytest.raises(ConfigError, match="repeat differs"):
        compare_reports(once, base)
    other_path = write_dataset(tmp_path, two_checks([1, 5]), "g.json")
    other = read_report(await saved_run(tmp_path, other_path, {0: 1}, "o.json"))
    with pytest.raises(ConfigError, match="fingerprint differs"):
        compare_reports(other, base)


async def test_latency_is_not_compared_when_a_side_is_a_replay(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, two_checks([1]))
    base = read_report(await saved_run(tmp_path, data_path, {0: 1}, "base.json"))
    replayed = await replay_report(read_report(tmp_path / "base.json"), load_dataset(data_path))
    result = compare_reports(replayed, base)
    section = result.suites[0]
    assert section.latency.model_dump() == {"compared": False, "reason": "a side is a replay"}
    assert section.deltas["case_pass_rate"].delta.low is None  # one source case: no interval
    assert result.modes.model_dump() == {"candidate": "replay", "baseline": "run"}
    assert list(compare_reports(base, base).suites[0].latency.model_dump()) == ["compared", "candidate", "baseline"]




async def test_the_shared_figures_are_the_case_pass_rate_over_source_cases(tmp_path: Path) -> None:
    from tracegrade.stats import GateOptions

    data_path = write_dataset(tmp_path, two_checks([1, 2, 3, 4]))
    base = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 0, 2: 3, 3: 4}, "base.json"))
    cand = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 2, 2: 0, 3: None}, "cand.json"))
    gate = GateOptions(fail_on_new_failures=True)
    result = compare_reports(cand, base, IntervalParameters(resamples=500), gate=gate, paths=("b.json", "c.json"))
    per_suite = result.suites[0].deltas["case_pass_rate"]
    assert result.primary == "case_pass_rate" and result.n == 4  # source cases, repetitions pooled
    assert (result.baseline_score, result.candidate_score) == (per_suite.baseline, per_suite.candidate)
    assert result.mean_delta == pytest.approx(per_suite.delta.estimate)
    # the grouped bootstrap of the suite section and the ratio bootstrap over cases draw the same resamples
    assert (result.interval.low, result.interval.high) == pytest.approx((per_suite.delta.low, per_suite.delta.high))
    assert (result.baseline.path, result.candidate.path) == ("b.json", "c.json")
    assert sorted(result.improved + result.regressed + result.unchanged) == [p.id for p in sorted(result.pairs,
                                                                                                  key=lambda p: p.id)]
    assert result.newly_failing and result.gate.exit_code == 1 and result.gate.fired[0].startswith(
        f"fail_on_new_failures: {len(result.newly_failing)} newly failing")
    assert compare_reports(base, base, gate=GateOptions(fail_on_regression=True, fail_on_new_failures=True)
                           ).gate.exit_code == 0


async def test_the_failure_rate_delta_counts_failed_and_cancelled_attempts(tmp_path: Path) -> None:
    import dataclasses

    data_path = write_dataset(tmp_path, two_checks([1, 2]))
    base = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 2}, "base.json"))
    suite = base.suites[0]
    statuses = ["failed", "cancelled", "completed", "completed"]
    failing = [dataclasses.replace(a, status=s) for a, s in zip(suite.attempts, statuses, strict=True)]
    cand = base.model_copy(update={"suites": [suite.model_copy(update={"attempts": failing})]})
    delta = compare_reports(cand, base, IntervalParameters(resamples=200)).suites[0].deltas["failure_rate"]
    assert (delta.candidate, delta.baseline, delta.delta.estimate) == (0.5, 0.0, pytest.approx(0.5))
