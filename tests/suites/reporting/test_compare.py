from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.suites.helpers import case, expectation, manifest, suite, write_dataset
from tracegrade.errors import ConfigError
from tracegrade.suites import (
    CallableTarget,
    IntervalParameters,
    SuiteRunParameters,
    compare_reports,
    load_dataset,
    read_report,
    replay_report,
    run_dataset,
    write_private,
)
from tracegrade.suites.checking._records import AttemptRequest
from tracegrade.suites.reporting._report import dumps_report


def gold(values: list[int]) -> dict[str, Any]:
    return manifest(suite("s", [case(f"c{i}", expectation("v", "/v", v), expectation("w", "/w", 0),
                                     payload={"i": i}) for i, v in enumerate(values)]))


async def saved_run(tmp_path: Path, data_path: Path, answers: dict[int, int], name: str,
                    params: SuiteRunParameters | None = None) -> Path:
    async def sut(request: AttemptRequest) -> dict[str, Any]:
        i = request.payload["i"]
        if answers.get(i) is None:
            raise RuntimeError("down")
        return {"v": answers[i], "w": 0, "execution": {"status": "completed"}}

    report = await run_dataset(load_dataset(data_path), CallableTarget(sut), params or SuiteRunParameters(repeat=2))
    path = tmp_path / name
    write_private(path, dumps_report(report))
    return path


async def test_replay_rescores_against_current_gold_and_keeps_timing(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, gold([1, 2, 3]))
    saved = await saved_run(tmp_path, data_path, {0: 1, 1: 2, 2: 9}, "run.json")
    fixed_gold = write_dataset(tmp_path, gold([1, 2, 9]), "fixed.json")
    original = read_report(saved)
    replayed = await replay_report(read_report(saved), load_dataset(fixed_gold))
    assert original["suites"][0]["checks"]["passed"] == 10
    assert replayed["suites"][0]["checks"]["passed"] == 12 and replayed["mode"] == "replay"
    before = [a.elapsed_seconds for a in original["suites"][0]["attempts"]]
    assert [a.elapsed_seconds for a in replayed["suites"][0]["attempts"]] == before


async def test_replay_refuses_changed_inputs_order_targets_and_configuration(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, gold([1, 2]))
    saved = await saved_run(tmp_path, data_path, {0: 1, 1: 2}, "run.json")
    raw = gold([1, 2])
    reordered = {**raw, "suites": [{**raw["suites"][0], "cases": raw["suites"][0]["cases"][::-1]}]}
    other_input = json.loads(json.dumps(raw))
    other_input["suites"][0]["cases"][0]["input"]["payload"] = {"i": 7}
    retargeted = {**raw, "suites": [{**raw["suites"][0], "flow": "f"}]}
    for number, changed in enumerate((reordered, other_input, retargeted)):
        with pytest.raises(ConfigError, match="cannot replay"):
            await replay_report(read_report(saved), load_dataset(write_dataset(tmp_path, changed, f"d{number}.json")))
    report = read_report(saved)
    report["suites"][0]["repeat"] = 3
    with pytest.raises(ConfigError, match="configuration changed"):
        await replay_report(report, load_dataset(data_path))


async def test_compare_classifies_attempts_and_recomputes_deltas(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, gold([1, 2, 3, 4]))
    base = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 0, 2: 3, 3: 4}, "base.json"))
    cand = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 2, 2: 0, 3: None}, "cand.json"))
    base["suites"][0]["check_pass_rate"] = 0.0  # saved aggregates are ignored
    result = compare_reports(cand, base, IntervalParameters(resamples=500))
    section = result["suites"][0]
    assert section["changes"] == {"improved": 2, "regressed": 4, "mixed": 0, "unchanged": 2}
    delta = section["deltas"]["check_pass_rate"]
    assert (delta["candidate"], delta["baseline"]) == (10 / 16, 14 / 16)
    assert delta["delta"]["estimate"] == pytest.approx(-4 / 16)
    assert delta["delta"]["n"] == 4 and delta["delta"]["low"] <= delta["delta"]["estimate"] <= delta["delta"]["high"]
    assert section["deltas"]["failure_rate"]["delta"]["estimate"] == pytest.approx(2 / 8)
    assert compare_reports(cand, base, IntervalParameters(resamples=500)) == result  # seeded: reproducible


async def test_compare_refuses_incompatible_reports(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, gold([1, 2]))
    base = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 2}, "base.json"))
    once = read_report(await saved_run(tmp_path, data_path, {0: 1, 1: 2}, "once.json", SuiteRunParameters()))
    with pytest.raises(ConfigError, match="repeat differs"):
        compare_reports(once, base)
    other = read_report(await saved_run(tmp_path, write_dataset(tmp_path, gold([1, 5]), "g.json"), {0: 1}, "o.json"))
    with pytest.raises(ConfigError, match="fingerprint differs"):
        compare_reports(other, base)


async def test_latency_is_not_compared_when_a_side_is_a_replay(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, gold([1]))
    base = read_report(await saved_run(tmp_path, data_path, {0: 1}, "base.json"))
    replayed = await replay_report(read_report(tmp_path / "base.json"), load_dataset(data_path))
    section = compare_reports(replayed, base)["suites"][0]
    assert section["latency"] == {"compared": False, "reason": "a side is a replay"}
    assert section["deltas"]["case_pass_rate"]["delta"]["low"] is None  # one source case: no interval


async def test_replay_needs_the_saved_results(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, gold([1]))
    saved = await saved_run(tmp_path, data_path, {0: 1}, "run.json", SuiteRunParameters(details=False))
    with pytest.raises(ConfigError, match="no saved results"):
        await replay_report(read_report(saved), load_dataset(data_path))
