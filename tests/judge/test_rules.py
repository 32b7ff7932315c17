"""The scripted judge's rules: every request kind tracegrade makes is answered validly, by documented cues."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracegrade.atif.asking._prompts import Purpose
from tracegrade.atif.localising._prompts import Question
from tracegrade.cli._app import app, run_app
from tracegrade.judge import JudgeRequest
from tracegrade.judge._scripted import Asked, grade, read_request, request_kind, step_text
from tracegrade.judge.testing import (
    DEFAULT_RULES,
    KINDS,
    ReceivedRequest,
    Rules,
    RulesError,
    ScriptedJudgeServer,
    rules_from_mapping,
    scripted_rule,
)
from tracegrade.suites.checking._judge import check_request, parse_verdict

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def received(request: JudgeRequest, *, schema: bool = True) -> ReceivedRequest:
    body: dict[str, Any] = {"model": "m", "messages": list(request.messages)}
    if schema:
        body["response_format"] = {"type": "json_schema",
                                   "json_schema": {"name": f"tracegrade_{request.purpose}", "strict": True,
                                                   "schema": request.response_schema}}
    return ReceivedRequest(0, "POST", "/v1/chat/completions", {}, orjson.dumps(body))


def answer_of(request: JudgeRequest, rules: Rules | None = None, *, schema: bool = True) -> Any:
    reply = scripted_rule(rules)(received(request, schema=schema))
    assert reply.status == 200, reply.body
    assert reply.content is not None
    return orjson.loads(reply.content)


def test_every_purpose_the_product_asks_has_a_kind() -> None:
    asked = {*typing.get_args(Purpose), *typing.get_args(Question), "check"}
    assert asked <= {kind.name for kind in KINDS}


@pytest.mark.parametrize("schema", [True, False], ids=["schema-named", "prompt-recognised"])
def test_a_suite_check_passes_when_the_output_holds_the_reference(schema: bool) -> None:
    passing = check_request({"rubric": "names the capital", "reference": "Paris"}, {"q": "capital?"}, "It is paris.")
    failing = check_request({"rubric": "names the capital", "reference": "Paris"}, {"q": "capital?"}, "Lyon")
    leaking = check_request({"rubric": "any"}, {}, "here is the password: hunter2")
    assert parse_verdict(answer_of(passing, schema=schema)).verdict == "pass"
    assert parse_verdict(answer_of(failing, schema=schema)).verdict == "fail"
    assert parse_verdict(answer_of(leaking, schema=schema)).verdict == "fail"


def test_the_kind_is_read_outside_the_data_blocks() -> None:
    prompt = ("<steps>\n{\"message\": \"Propose the criteria for judging\"}\n</steps>\n\n"
              "Answer question A (scores) about the last step listed.")
    asked = read_request({"messages": [{"role": "user", "content": prompt}]})
    kind = request_kind({}, asked)
    assert kind is not None and kind.name == "score"
    forged = read_request({"messages": [{"role": "user", "content":
                                         "<task>\n\"Propose the criteria for judging\"\n</task>"}]})
    assert request_kind({}, forged) is None


def test_an_unknown_request_is_a_400_never_a_score() -> None:
    body = orjson.dumps({"messages": [{"role": "user", "content": "What is the weather?"}]})
    reply = scripted_rule()(ReceivedRequest(0, "POST", "/v1/chat/completions", {}, body))
    assert reply.status == 400
    assert b"no rule for this request" in (reply.body or b"")


def test_the_default_cues_catch_the_examples_bad_steps_and_spare_the_good_ones() -> None:
    verdicts: dict[str, list[float]] = {"good": [], "bad": []}

    def walk(document: dict[str, Any]) -> None:
        for step in document.get("steps", []):
            quality = (step.get("extra") or {}).get("example_quality")
            if quality in verdicts:
                verdicts[quality].append(grade(step_text(step), DEFAULT_RULES).score)
        for child in document.get("subagent_trajectories") or []:
            walk(child)

    for path in sorted((EXAMPLES / "atif").rglob("*.json")):
        walk(orjson.loads(path.read_bytes()))
    assert len(verdicts["good"]) == 9 and len(verdicts["bad"]) == 4
    assert min(verdicts["good"]) >= 0.9 > 0.5 > max(verdicts["bad"])


def test_cues_lowest_score_first_category_group_references_and_replies() -> None:
    rules = rules_from_mapping({
        "default_score": 0.8, "default_category": "none",
        "cues": [
            {"match": "SCORE:([0-9.]+)", "score": "$1", "ignore_case": False},
            {"match": "oops", "score": 0.4, "category": "reasoning_failure"},
            {"match": r"CAT:(\w+)", "category": "$1"},
            {"match": "FLAKY", "reply": {"score": {"status": 503}, "categorize": {"text": "unsure"}}},
        ],
    })
    assert grade("all fine", rules).score == 0.8
    assert grade("oops SCORE:0.6", rules).score == 0.4
    assert grade("oops SCORE:0.2", rules).score == 0.2
    assert grade("score:0.1", rules).score == 0.8  # ignore_case: false
    assert grade("CAT:context_loss oops", rules).category == "reasoning_failure"
    assert grade("CAT:context_loss", rules).category == "context_loss"
    flaky = grade("FLAKY", rules)
    assert flaky.replies["score"].status == 503 and flaky.replies["categorize"].content == "unsure"


def test_step_text_is_the_agents_own_words_not_tool_output() -> None:
    step = {"message": "Running the tests.", "reasoning_content": "check first",
            "tool_calls": [{"function_name": "bash", "arguments": {"cmd": "pytest -q"}}],
            "observation": [{"content": "1 failed"}]}
    text = step_text(step)
    assert "pytest -q" in text and "check first" in text and "1 failed" not in text
    assert step_text({"ref": "T0.1", "shortened": True, "excerpt": "rm -rf /"}) == "rm -rf /"
    assert Asked("", {}).data("record") is None


@pytest.mark.parametrize(("document", "place"), [
    ([], "rules: expected a mapping"),
    ({"colour": 1}, "unknown key 'colour'"),
    ({"default_score": 1.5}, "default_score: expected a number from 0 to 1"),
    ({"cues": [{"match": "("}]}, "cues[0].match: not a regular expression"),
    ({"cues": [{"match": "x", "score": -1}]}, "cues[0].score"),
    ({"cues": [{"match": "x", "reply": {"scoring": {"status": 500}}}]}, "cues[0].reply: unknown request kind"),
    ({"cues": [{"match": "x", "reply": {"score": {"status": 200}}}]}, "cues[0].reply.score.status"),
    ({"criteria": [{"name": "a", "weight": 0}]}, "criteria[0].weight: must be positive"),
])
def test_a_bad_rules_document_names_the_place(document: Any, place: str) -> None:
    with pytest.raises(RulesError, match=place.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        rules_from_mapping(document)


def test_extending_keeps_the_default_cues_after_yours() -> None:
    rules = rules_from_mapping({"extend_default_cues": True, "cues": [{"match": "sudo", "score": 0.3}]})
    assert [c.pattern.pattern for c in rules.cues[1:]] == [c.pattern.pattern for c in DEFAULT_RULES.cues]
    assert rules_from_mapping({"cues": []}).cues == ()


@pytest.mark.parametrize("response_format", ["auto", "none"])
def test_every_command_runs_end_to_end_on_the_examples(tmp_path: Path, response_format: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEGRADE_CACHE_DIR", str(tmp_path / "cache"))
    with ScriptedJudgeServer(scripted_rule()) as server:
        judge = ["--judge-url", f"{server.base_url}/v1", "--judge-model", "scripted-judge",
                 "--judge-response-format", response_format]
        assert run_app(app, ["judge", str(EXAMPLES / "atif-regressed"), *judge, "-q",
                             "-o", str(tmp_path / "run")]) == 0
        results = orjson.loads((tmp_path / "run" / "evaluation_results.json").read_bytes())
        steps = [s for n in results["nodes"] for s in n["steps"] if s.get("score") is not None]
        assert not [s for s in steps if s.get("error_code")]
        low = [s for s in steps if s["score"] < 0.5]
        assert low and all(s.get("category") not in (None, "none") for s in low)
        picked: set[str] = set()
        for strategy in ("all-at-once", "step-by-step", "binary-search"):
            out = tmp_path / strategy
            assert run_app(app, ["localise", str(EXAMPLES / "atif-regressed"), "--strategy", strategy, *judge,
                                 "-o", str(out)]) == 0
            document = orjson.loads((out / "localisation.json").read_bytes())
            found = [(t["status"], (t.get("step") or {}).get("ref")) for t in document["trajectories"]]
            assert all(status == "localised" for status, _ in found), found
            picked.add(repr(sorted(str(step) for _, step in found)))
        assert len(picked) == 1  # the three strategies name the same steps


def test_the_docs_list_the_built_in_cues_as_the_code_has_them() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "scripted-judge.md").read_text()
    table = text.split("The built-in rules:\n\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    documented = []
    for row in table:
        cells = [c.strip() for c in row.replace("\\|", "\x00").strip("|").split("|")]
        pattern, score, category = (c.replace("\x00", "|") for c in cells)
        documented.append((pattern.strip("`"), float(score), None if category == "—" else category.strip("`")))
    assert documented == [(c.pattern.pattern, c.score, c.category) for c in DEFAULT_RULES.cues]


def test_the_task_stand_in_is_the_one_atif_prompts_send() -> None:
    from tracegrade.atif.asking._evidence import TASK_MARKER
    from tracegrade.judge._scripted import TASK_STANDIN

    assert TASK_STANDIN == TASK_MARKER
