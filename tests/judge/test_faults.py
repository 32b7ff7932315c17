from __future__ import annotations

import orjson
import pytest

from tracegrade.judge._faults import TEN_MB, Fault, FaultInjector
from tracegrade.judge.testing import ReceivedRequest, ScriptedReply

VERDICT = {"scores": {"a": 0.5}, "rationale": "fine", "final": True, "notes": ["x", 2]}


def rule(request: ReceivedRequest) -> ScriptedReply:
    return ScriptedReply.answer(VERDICT)


def request(index: int = 0, last: str = "the step") -> ReceivedRequest:
    body = orjson.dumps({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": last}]})
    return ReceivedRequest(index=index, method="POST", path="/v1/chat/completions", headers={}, body=body)


def answer(fault: Fault, **options: object) -> ScriptedReply:
    return FaultInjector(rule, rate=1.0, faults=(fault,), **options)(request())  # type: ignore[arg-type]


@pytest.mark.parametrize("options", [{"rate": 1.5}, {"rate": -0.1}, {"faults": ()}])
def test_a_rate_outside_zero_and_one_or_no_faults_is_refused(options: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="rate must be in"):
        FaultInjector(rule, **options)  # type: ignore[arg-type]


def test_every_request_is_accounted_for_in_the_ledger() -> None:
    injector = FaultInjector(rule, rate=0.5, seed=3)
    replies = [injector(request(i)) for i in range(40)]
    assert len(injector.ledger) == 40 and sum(injector.counts.values()) == 40
    assert [reply == rule(request()) for reply in replies] == [fault is None for fault in injector.ledger]
    assert 0 < injector.counts["ok"] < 40


def test_the_same_seed_gives_the_same_faults_in_the_same_order() -> None:
    ledgers = []
    for seed in (7, 7, 8):
        injector = FaultInjector(rule, rate=0.5, seed=seed)
        for i in range(40):
            injector(request(i))
        ledgers.append(injector.ledger)
    assert ledgers[0] == ledgers[1] != ledgers[2]


def test_after_the_limit_the_rule_answers_every_request() -> None:
    injector = FaultInjector(rule, rate=1.0, faults=(Fault.SERVER_ERROR,), limit=2)
    for i in range(5):
        injector(request(i))
    assert injector.ledger == [Fault.SERVER_ERROR, Fault.SERVER_ERROR, None, None, None]
    assert injector.counts == {"server_error": 2, "ok": 3}


@pytest.mark.parametrize(
    ("fault", "status"),
    [(Fault.RATE_LIMITED, 429), (Fault.SERVER_ERROR, 500), (Fault.UNAVAILABLE, 503), (Fault.HTML_ERROR_PAGE, 502)],
)
def test_http_faults_answer_their_status(fault: Fault, status: int) -> None:
    assert answer(fault).status == status


def test_a_rate_limit_says_when_to_come_back_and_a_proxy_page_is_html() -> None:
    assert ("retry-after", "0.25") in answer(Fault.RATE_LIMITED, retry_after=0.25).headers
    page = answer(Fault.HTML_ERROR_PAGE)
    assert ("content-type", "text/html") in page.headers and page.body is not None and b"<html>" in page.body


def test_transport_faults_drop_stall_or_cut_the_answer() -> None:
    assert answer(Fault.RESET).drop
    assert answer(Fault.TIMEOUT, stall_seconds=1.5).delay == 1.5
    cut = answer(Fault.TRUNCATED)
    assert cut.truncate and cut.content == rule(request()).content


def test_body_faults_are_huge_or_not_utf8() -> None:
    huge = answer(Fault.HUGE_BODY).body
    assert huge is not None and len(huge) > TEN_MB
    broken = answer(Fault.INVALID_UTF8).body
    with pytest.raises(UnicodeDecodeError):
        (broken or b"").decode("utf-8")


def test_harmless_faults_still_carry_the_rules_verdict() -> None:
    drip = answer(Fault.SLOW_DRIP)
    assert drip.drip > 0 and drip.content == rule(request()).content
    quoted = answer(Fault.QUOTES_EVIDENCE).content or ""
    assert quoted.startswith("The step under review reads the step.") and quoted.endswith(rule(request()).content or "")


def test_a_quoting_judge_quotes_what_the_front_door_says() -> None:
    quoted = answer(Fault.QUOTES_EVIDENCE, quote=lambda request: "STEP 4").content or ""
    assert quoted.startswith("The step under review reads STEP 4.")


def test_wrong_types_turn_numbers_into_words_and_words_into_numbers() -> None:
    mistyped = orjson.loads(answer(Fault.WRONG_TYPES).content or "")
    assert mistyped == {"scores": {"a": "high"}, "rationale": 42, "final": True, "notes": [42, "high"]}


def test_wrong_types_of_an_answer_that_is_no_object_are_still_wrong() -> None:
    injector = FaultInjector(lambda request: ScriptedReply.text("no json"), rate=1.0, faults=(Fault.WRONG_TYPES,))
    assert orjson.loads(injector(request()).content or "") == {"value": "high"}
