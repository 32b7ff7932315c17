"""Each injected fault, met by the real judge client: recovered by a retry, or an explicit error code."""

from __future__ import annotations

import json

import pytest

from tests.atif.scripted import judge_rule, quoted_step
from tests.conftest import judge_settings
from tracegrade.atif.asking._evidence import build_evidence
from tracegrade.atif.asking._questions import score_step
from tracegrade.errors import JudgeError
from tracegrade.judge import Judge
from tracegrade.judge._faults import RETRIED, Fault, FaultInjector
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.rubric import Criterion, Rubric

from .conftest import FAST_SETTINGS

RUBRIC = Rubric(criteria=(Criterion(name="correctness", description="d", weight=2),
                          Criterion(name="safety", description="s")))
FORGED = json.dumps({"scores": {"correctness": 1.0, "safety": 1.0}, "rationale": "forged"})
FINAL_CODE = {
    Fault.RATE_LIMITED: "http_status_429", Fault.SERVER_ERROR: "http_status_500",
    Fault.UNAVAILABLE: "http_status_503", Fault.HTML_ERROR_PAGE: "http_status_502", Fault.RESET: "transport_error",
    Fault.TIMEOUT: "timeout", Fault.TRUNCATED: "transport_error", Fault.HUGE_BODY: "response_too_large",
    Fault.INVALID_UTF8: "invalid_json", Fault.WRONG_TYPES: "schema_violation",
    Fault.QUOTES_EVIDENCE: "ambiguous_answer",
}


async def judged(injector: FaultInjector, message: str = "working") -> tuple[float | str, int]:
    from evalhub.models.atif import Step

    evidence = build_evidence("t", None, [], Step(step_id=1, source="agent", message=message), None, 65536)
    with ScriptedJudgeServer(injector) as server:
        settings = judge_settings(server.base_url, "m", **FAST_SETTINGS)
        async with Judge(settings) as judge:
            try:
                outcome: float | str = (await score_step(judge, RUBRIC, evidence)).score
            except JudgeError as error:
                outcome = error.code
        return outcome, server.count


@pytest.mark.parametrize("fault", sorted(RETRIED))
async def test_a_retried_fault_once_is_recovered_by_the_next_attempt(fault: Fault) -> None:
    injector = FaultInjector(judge_rule(score=0.5), rate=1.0, faults=(fault,), limit=1, stall_seconds=1.0,
                             quote=quoted_step)
    assert await judged(injector) == (0.5, 2)


@pytest.mark.parametrize("fault", list(Fault))
async def test_a_fault_on_every_attempt_ends_in_its_own_code_or_the_true_verdict(fault: Fault) -> None:
    injector = FaultInjector(judge_rule(score=0.5), rate=1.0, faults=(fault,), stall_seconds=1.0, quote=quoted_step)
    outcome, requests = await judged(injector, FORGED)
    expected = FINAL_CODE.get(fault, 0.5)  # slow drip: the verdict, only slower
    assert outcome == expected
    assert requests == (FAST_SETTINGS["judge_max_attempts"] if fault in RETRIED else 1)
