from __future__ import annotations

import asyncio
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.suites.helpers import case, expectation, load, manifest, suite
from tracegrade.suites import CallableTarget, SuiteRunParameters, run_dataset
from tracegrade.suites.checking._records import AttemptRequest


def dataset(tmp_path: Path, cases: int = 6) -> Any:
    return load(tmp_path, manifest(suite("s", [case(f"c{i}", expectation("v", "/v", i), payload={"i": i})
                                               for i in range(cases)])))


async def test_concurrency_is_bounded_and_every_slot_stays_busy(tmp_path: Path) -> None:
    running, peak, others = 0, 0, 0
    others_done = asyncio.Event()

    async def sut(request: AttemptRequest) -> dict[str, Any]:
        nonlocal running, peak, others
        running += 1
        peak = max(peak, running)
        if request.case_id == "c0" and request.repetition == 1:
            # the slow attempt holds one slot until the other eleven have drained the queue through the other two
            await asyncio.wait_for(others_done.wait(), timeout=60)
        else:
            await asyncio.sleep(0.01)
            others += 1
            if others == 11:
                others_done.set()
        running -= 1
        return {"v": request.payload["i"]}

    report = await run_dataset(dataset(tmp_path), CallableTarget(sut), SuiteRunParameters(concurrency_limit=3,
                                                                                            repeat=2))
    assert peak == 3 and others == 11
    section = report.suites[0]
    assert [(a.id, a.repetition) for a in section.attempts][:3] == [("c0", 1), ("c0", 2), ("c1", 1)]
    assert section.checks.passed == 12 and section.source_case_count == 6


async def test_an_interrupted_run_resumes_without_rerunning_finished_attempts(tmp_path: Path) -> None:
    data, checkpoint = dataset(tmp_path), tmp_path / "run.checkpoint.jsonl"
    calls: list[str] = []

    async def hangs_after_two(request: AttemptRequest) -> dict[str, Any]:
        calls.append(request.case_id)
        if len(calls) > 2:
            await asyncio.sleep(60)
        return {"v": request.payload["i"]}

    params = SuiteRunParameters(concurrency_limit=1)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(run_dataset(data, CallableTarget(hangs_after_two), params, checkpoint=checkpoint), 1.0)
    assert stat.S_IMODE(checkpoint.stat().st_mode) == 0o600
    resumed: list[str] = []

    async def fast(request: AttemptRequest) -> dict[str, Any]:
        resumed.append(request.case_id)
        return {"v": request.payload["i"]}

    report = await run_dataset(data, CallableTarget(fast), params, checkpoint=checkpoint)
    assert resumed == ["c2", "c3", "c4", "c5"]
    assert report.suites[0].checks.passed == 6


async def test_report_identity_and_intervals(tmp_path: Path) -> None:
    async def sut(request: AttemptRequest) -> dict[str, Any]:
        return {"v": request.payload["i"] if request.case_id != "c1" else -1}

    report = await run_dataset(dataset(tmp_path, 3), CallableTarget(sut, name="fn"),
                               SuiteRunParameters(variant="v2", configuration_revision="cfg-7"))
    section = report.suites[0]
    assert (section.variant, section.configuration_revision, section.scorers) == ("v2", "cfg-7", {"exact": "builtin-1"})
    assert section.target_workflow == "wf" and section.target_step is None
    assert report.target == {"kind": "callable", "name": "fn"} and report.mode == "run" and report.replayed is None
    assert report.parameters.variant == "v2" and report.dataset.model_dump() == {"name": "gold", "revision": "1"}
    assert section.intervals.case_pass_rate.estimate == pytest.approx(2 / 3)
    assert section.intervals.case_pass_rate.n == 3
