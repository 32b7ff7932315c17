from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.suites.helpers import saved_run, two_checks, write_dataset
from tracegrade.errors import ConfigError
from tracegrade.suites import SuiteRunParameters, load_dataset, read_report, replay_report


async def test_replay_rescores_against_current_gold_and_keeps_timing(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, two_checks([1, 2, 3]))
    saved = await saved_run(tmp_path, data_path, {0: 1, 1: 2, 2: 9}, "run.json")
    fixed_gold = write_dataset(tmp_path, two_checks([1, 2, 9]), "fixed.json")
    original = read_report(saved)
    replayed = await replay_report(read_report(saved), load_dataset(fixed_gold))
    assert original.suites[0].checks.passed == 10
    assert replayed.suites[0].checks.passed == 12 and replayed.mode == "replay"
    assert replayed.replayed is not None and replayed.replayed.model_dump() == {"started_at": original.started_at,
                                                                                 "mode": "run"}
    assert (replayed.parameters, replayed.target) == (original.parameters, original.target)
    before = [a.elapsed_seconds for a in original.suites[0].attempts]
    assert [a.elapsed_seconds for a in replayed.suites[0].attempts] == before


async def test_replay_refuses_changed_inputs_order_targets_and_configuration(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, two_checks([1, 2]))
    saved = await saved_run(tmp_path, data_path, {0: 1, 1: 2}, "run.json")
    raw = two_checks([1, 2])
    reordered = {**raw, "suites": [{**raw["suites"][0], "cases": raw["suites"][0]["cases"][::-1]}]}
    other_input = json.loads(json.dumps(raw))
    other_input["suites"][0]["cases"][0]["input"]["payload"] = {"i": 7}
    retargeted = {**raw, "suites": [{**raw["suites"][0], "flow": "f"}]}
    for number, changed in enumerate((reordered, other_input, retargeted)):
        with pytest.raises(ConfigError, match="cannot replay"):
            await replay_report(read_report(saved), load_dataset(write_dataset(tmp_path, changed, f"d{number}.json")))
    report = read_report(saved)
    report = report.model_copy(update={"suites": [report.suites[0].model_copy(update={"repeat": 3})]})
    with pytest.raises(ConfigError, match="configuration changed"):
        await replay_report(report, load_dataset(data_path))


async def test_replay_needs_the_saved_results(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, two_checks([1]))
    saved = await saved_run(tmp_path, data_path, {0: 1}, "run.json", SuiteRunParameters(details=False))
    with pytest.raises(ConfigError, match="no saved results"):
        await replay_report(read_report(saved), load_dataset(data_path))


async def test_replay_refuses_another_dataset_and_other_suites(tmp_path: Path) -> None:
    data_path = write_dataset(tmp_path, two_checks([1]))
    saved = read_report(await saved_run(tmp_path, data_path, {0: 1}, "run.json"))
    other = {**two_checks([1]), "name": "other"}
    with pytest.raises(ConfigError, match="another dataset"):
        await replay_report(saved, load_dataset(write_dataset(tmp_path, other, "other.json")))
    renamed = two_checks([1])
    renamed["suites"][0]["name"] = "t"
    with pytest.raises(ConfigError, match="suites changed"):
        await replay_report(saved, load_dataset(write_dataset(tmp_path, renamed, "renamed.json")))
