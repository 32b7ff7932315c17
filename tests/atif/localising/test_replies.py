"""Localisation answers: only steps and agents of the record are accepted."""

from __future__ import annotations

import pytest

from tracegrade.atif.localising._replies import attribution_parser, parse_decision, parse_half
from tracegrade.errors import JudgeError

parse = attribution_parser({"T0.1", "T0.2"}, {"coder", "checker"})


def test_a_valid_attribution_is_kept() -> None:
    reply = parse({"agent": "coder", "step": "T0.2", "reason": "  it broke here "})
    assert reply.to_json() == {"agent": "coder", "step": "T0.2", "reason": "it broke here"}


@pytest.mark.parametrize("answer", [
    {"agent": "coder", "step": "T0.3", "reason": "r"},
    {"agent": "intern", "step": "T0.1", "reason": "r"},
    {"agent": "coder", "step": 2, "reason": "r"},
    {"agent": "coder", "step": "T0.1", "reason": ""},
    {"agent": "coder", "step": "T0.1"},
    {"agent": "coder", "step": "T0.1", "reason": "r", "confidence": 1},
])
def test_an_unknown_or_malformed_attribution_is_a_protocol_error(answer: dict[str, object]) -> None:
    with pytest.raises(JudgeError) as raised:
        parse(answer)
    assert raised.value.code == "schema_violation"


def test_decisions_and_halves() -> None:
    assert parse_decision({"decisive": True, "reason": "r"}).to_json() == {"decisive": True, "reason": "r"}
    assert parse_half({"half": "second", "reason": "r"}).to_json() == {"half": "second", "reason": "r"}
    for bad in ({"decisive": "yes", "reason": "r"}, {"decisive": 1, "reason": "r"}):
        with pytest.raises(JudgeError, match="schema_violation"):
            parse_decision(bad)
    with pytest.raises(JudgeError, match="schema_violation"):
        parse_half({"half": "middle", "reason": "r"})
