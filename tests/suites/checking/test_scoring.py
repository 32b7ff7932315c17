from __future__ import annotations

from typing import Any

from tests.suites.helpers import case, case_scorer, expectation
from tracegrade.suites import Case, CustomScorer, ScorerRegistry
from tracegrade.suites.checking._owners import ERROR_CODE_HINTS
from tracegrade.suites.checking._records import Observation


def result(flows: dict[str, Any], status: str = "completed") -> dict[str, Any]:
    return {"payload": {}, "flows": flows, "execution": {"status": status}}


async def score(exp: dict[str, Any], observed: dict[str, Any] | None, registry: ScorerRegistry | None = None,
                error: str | None = None) -> tuple[str, str | None]:
    scorer = case_scorer(Case.model_validate(case("c", exp)), registry)
    record = await scorer.score(Observation(observed, error), 1, details=False)
    return record.checks[0].outcome, record.checks[0].reason_code


FLOWS = {"triage": {"status": "completed", "steps": {
    "classify": {"status": "completed", "result": {"label": "a"}},
    "enrich": {"status": "skipped"},
    "lookup": {"status": "failed", "error": {"code": "timeout"}}}},
    "reply": {"status": "skipped", "steps": {}}}


async def test_present_values_pass_or_fail() -> None:
    assert await score(expectation("x", "/flows/triage/steps/classify/result/label", "a"), result(FLOWS)) == \
        ("passed", None)
    assert await score(expectation("x", "/flows/triage/steps/classify/result/label", "b"), result(FLOWS)) == \
        ("failed", "mismatch")


async def test_absent_paths_follow_their_owner() -> None:
    assert await score(expectation("x", "/flows/triage/steps/enrich/result", 1), result(FLOWS)) == \
        ("skipped", "owner_skipped")
    assert await score(expectation("x", "/flows/reply/result/text", 1), result(FLOWS)) == ("skipped", "owner_skipped")
    assert await score(expectation("x", "/flows/triage/steps/lookup/result", 1), result(FLOWS)) == \
        ("error", "owner_failed")
    assert await score(expectation("x", "/flows/triage/steps/classify/result/other", 1), result(FLOWS)) == \
        ("missing", "path_absent")


async def test_absent_as_null_only_under_an_executed_owner() -> None:
    exp = expectation("x", "/flows/triage/steps/classify/result/other", None, absent_as_null=True)
    assert await score(exp, result(FLOWS)) == ("passed", None)
    skipped = expectation("x", "/flows/triage/steps/enrich/result/other", None, absent_as_null=True)
    assert await score(skipped, result(FLOWS)) == ("skipped", "owner_skipped")


async def test_no_valid_result_makes_every_check_an_error() -> None:
    assert await score(expectation("x", "", {}), None, error="timeout") == ("error", "no_valid_result")


async def test_nested_collection_items_and_flow_attempts_own_their_paths() -> None:
    item = {"id": "i1", "flow": "child", "status": "skipped", "steps": {}}
    flows = {"fan": {"status": "completed", "steps": {"each": {
        "status": "completed", "kind": "flow_collection", "result": {"items": [item]}}}}}
    path = "/flows/fan/steps/each/result/items/0/steps/s/result"
    assert await score(expectation("x", path, 1), result(flows)) == ("skipped", "owner_skipped")
    retried = {"r": {"status": "completed", "attempts": [{"status": "failed", "steps": {}}], "steps": {}}}
    assert await score(expectation("x", "/flows/r/attempts/0/result", 1), result(retried)) == ("error", "owner_failed")


async def test_each_projection_failure_is_a_failed_check() -> None:
    observed = {"items": [{"id": 1}, {"name": "x"}]}
    exp = expectation("ids", "/items", [1, 2], each="/id", comparison="set")
    assert await score(exp, observed) == ("failed", "projection_item_lacks_member")
    assert await score(expectation("ids", "/items", [1, 2], each="/id"), {"items": [{"id": 1}, {"id": 2}]}) == \
        ("passed", None)


async def test_custom_scorer_exception_is_an_error_never_a_pass() -> None:
    async def boom(actual: object, expected: object) -> bool:
        raise RuntimeError("secret detail")

    async def truthy(actual: object, expected: object) -> bool:
        return 1  # type: ignore[return-value]

    registry = ScorerRegistry([CustomScorer("boom", "1", boom), CustomScorer("truthy", "1", truthy)])
    assert await score(expectation("x", "/a", 1, comparison="boom"), {"a": 1}, registry) == ("error", "scorer_error")
    assert await score(expectation("x", "/a", 1, comparison="truthy"), {"a": 1}, registry) == \
        ("error", "scorer_invalid_answer")


async def test_attempt_status_and_error_code_come_from_the_execution() -> None:
    scorer = case_scorer(Case.model_validate(case("c", expectation("s", "/execution/status", "completed"))))
    failed = {"execution": {"status": "failed", "error": {"code": "provider_unavailable"}}}
    record = await scorer.score(Observation(failed), 2, details=True)
    assert (record.status, record.error_code, record.repetition, record.passed) == \
        ("failed", "provider_unavailable", 2, False)
    assert record.details is not None and record.details["result"] == failed
    odd = await scorer.score(Observation({"execution": {"status": "done"}}), 1, details=False)
    assert (odd.status, odd.error_code) == ("error", "unknown_execution_status")
    assert "completed, needs_review, failed, cancelled" in ERROR_CODE_HINTS[odd.error_code]
    unsafe = await scorer.score(Observation({"execution": {"status": "failed", "error": {"code": "Trace: at x"}}}), 1,
                                details=False)
    assert unsafe.error_code == "workflow_failed"
