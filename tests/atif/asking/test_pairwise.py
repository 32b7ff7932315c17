"""The pairwise question: what the judge sees, the budget, and the answer read strictly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade.atif.asking._pairwise import pairwise_request, parse_pairwise, project_tree
from tracegrade.atif.reading._load import load_trajectories
from tracegrade.errors import JudgeError

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _root(path: Path):  # type: ignore[no-untyped-def]
    return load_trajectories([path]).roots[0]


def test_subagent_steps_are_shown_with_their_agent_and_extra_fields_are_not() -> None:
    steps = project_tree(_root(EXAMPLES / "atif" / "sales-report"))
    assert {s["agent"] for s in steps} == {"report-writer", "chart-agent", "sql-helper"}
    assert all("extra" not in s for s in steps)


def test_the_compact_view_and_the_refusal() -> None:
    first, second = _root(EXAMPLES / "atif" / "bugfix-session"), _root(EXAMPLES / "atif-regressed" / "bugfix-session")
    _, view = pairwise_request("fix it", first, second, 64_000)
    assert view == "full"
    full, _ = pairwise_request("fix it", first, second, 64_000)
    compact, view = pairwise_request("fix it", first, second, len(full.canonical) - 1)
    assert view == "compact" and len(compact.canonical) < len(full.canonical)
    with pytest.raises(JudgeError) as info:
        pairwise_request("fix it", first, second, len(compact.canonical) - 1)
    assert info.value.code == "context_overflow"


def test_the_order_changes_the_request_and_so_its_cache_key() -> None:
    first, second = _root(EXAMPLES / "atif" / "bugfix-session"), _root(EXAMPLES / "atif-regressed" / "bugfix-session")
    forward, _ = pairwise_request("t", first, second, 64_000)
    backward, _ = pairwise_request("t", second, first, 64_000)
    assert forward.canonical != backward.canonical and forward.purpose == "pairwise"


@pytest.mark.parametrize("answer", [{"winner": "both", "reason": "x"}, {"winner": "tie"},
                                    {"winner": "tie", "reason": " "}])
def test_unusable_answers_are_protocol_errors(answer: dict[str, str]) -> None:
    with pytest.raises(JudgeError) as info:
        parse_pairwise(answer)
    assert info.value.code == "schema_violation"


def test_a_usable_answer_round_trips() -> None:
    reply = parse_pairwise({"winner": "second", "reason": " better "})
    assert parse_pairwise(reply.to_json()) == reply and reply.reason == "better"
