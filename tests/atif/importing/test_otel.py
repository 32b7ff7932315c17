from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.atif.importing.otlp import TRACE, agent, chat, event, messages, request, span, tool, tool_call, write
from tests.atif.scripted import judge_server  # noqa: F401  (the marker-reading scripted judge, a fixture)
from tracegrade.atif.importing._envelopes import TraceFile, read_trace_file
from tracegrade.atif.importing._otel import import_otel, trace_documents
from tracegrade.atif.output._artifacts import read_results
from tracegrade.atif.reading._checks import check_trajectory
from tracegrade.atif.reading._document import validate_document
from tracegrade.atif.reading._models import Trajectory
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.cli._app import app, run_app
from tracegrade.errors import InputError, OutputError
from tracegrade.judge.testing import ScriptedJudgeServer

TASK = "Find the capital of France."


def convert(tmp_path: Path, spans: list[dict[str, Any]]) -> tuple[dict[str, Any], TraceFile]:
    found = read_trace_file(write(tmp_path, "trace.json", request(spans)))
    built: list[dict[str, Any]] = []
    trace_documents([found], lambda name, source, document: built.append(document))
    (document,) = built
    assert_valid(document)
    return document, found


def assert_valid(document: dict[str, Any]) -> None:
    checked = validate_document(orjson.loads(orjson.dumps(document)), LoadOptions(max_steps_per_trajectory=1 << 20))
    assert isinstance(checked, Trajectory), checked
    assert list(check_trajectory(checked)) == []


def loop() -> list[dict[str, Any]]:
    """An agent that searches once and answers."""
    return [
        agent(1, None, 0, "geo"),
        chat(2, 1, 1, messages(("system", "Be exact."), ("user", TASK)), tool_call("c1", "search", {"q": "France"})),
        tool(3, 1, 2, "search", "c1", "Paris is the capital."),
        chat(4, 1, 3, messages(("system", "Be exact."), ("user", TASK)), messages(("assistant", "Paris."))),
    ]


def test_an_agent_loop_becomes_steps_with_calls_joined_to_their_tool_spans(tmp_path: Path) -> None:
    document, found = convert(tmp_path, loop())
    steps = document["steps"]
    assert [(s["source"], s["message"]) for s in steps] == [
        ("system", "Be exact."), ("user", TASK), ("agent", ""), ("agent", "Paris.")]
    assert steps[2]["tool_calls"] == [{"tool_call_id": "c1", "function_name": "search", "arguments": {"q": "France"}}]
    assert steps[2]["observation"]["results"][0]["content"] == "Paris is the capital."
    assert steps[2]["metrics"] == {"prompt_tokens": 10, "completion_tokens": 5} and steps[2]["llm_call_count"] == 1
    assert steps[2]["extra"]["otel"] == {"trace_id": TRACE, "span_id": f"{2:016x}", "span_name": "chat test-model"}
    assert steps[0]["timestamp"] == "2026-01-01T10:00:00.001000Z"
    assert document["agent"]["name"] == "geo" and document["extra"]["task_instruction"] == TASK
    assert document["extra"]["otel"]["span_id"] == f"{1:016x}"
    assert found.tally.as_dict() == {} and found.tally.notes_dict() == {}


def test_spans_out_of_order_give_the_same_trajectory(tmp_path: Path) -> None:
    spans = loop()
    shuffled = spans[:]
    random.Random(7).shuffle(shuffled)
    assert shuffled != spans
    assert convert(tmp_path, shuffled)[0] == convert(tmp_path, spans)[0]


def test_orphan_spans_are_put_under_the_trace_root_and_noted(tmp_path: Path) -> None:
    spans = loop()
    spans[1]["parentSpanId"] = f"{99:016x}"  # a parent that was never exported
    document, found = convert(tmp_path, spans)
    assert len(document["steps"]) == 4 and document["agent"]["name"] == "geo"
    assert found.tally.notes_dict() == {"span whose parent is not in the trace, put under the trace root": 1}


def test_a_tool_span_whose_call_is_missing_is_a_step_of_its_own(tmp_path: Path) -> None:
    spans = [*loop(), tool(5, 1, 4, "notify", None, "sent")]
    document, found = convert(tmp_path, spans)
    last = document["steps"][-1]
    assert last["llm_call_count"] == 0 and last["tool_calls"][0]["function_name"] == "notify"
    assert last["observation"]["results"][0]["content"] == "sent"
    assert found.tally.notes_dict() == {"tool span without a model call asking for it (a step of its own)": 1}


def test_a_result_recorded_only_in_the_next_input_is_joined_to_its_call(tmp_path: Path) -> None:
    history = orjson.dumps([
        {"role": "user", "parts": [{"type": "text", "content": TASK}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "search", "arguments": {}}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "Paris"}]}]).decode()
    spans = [agent(1, None, 0, "geo"), chat(2, 1, 1, messages(("user", TASK)), tool_call("c1", "search", {})),
             chat(3, 1, 2, history, messages(("assistant", "Paris.")))]
    steps = convert(tmp_path, spans)[0]["steps"]
    assert len(steps) == 3 and steps[1]["observation"]["results"] == [{"source_call_id": "c1", "content": "Paris"}]


def test_unknown_attributes_and_spans_without_a_genai_role_are_counted(tmp_path: Path) -> None:
    spans = loop()
    spans[1]["attributes"].append({"key": "vendor.thing", "value": {"stringValue": "x"}})
    spans.append(span(9, 1, "GET /health", 5, {"http.method": "GET"}))
    _, found = convert(tmp_path, spans)
    assert found.tally.as_dict() == {"attribute vendor.thing": 1, "span without a GenAI role (agent, model or tool)": 1}


def test_failures_stay_visible_to_the_judge(tmp_path: Path) -> None:
    spans = loop()
    spans[2] = tool(3, 1, 2, "search", "c1", "", **{"error.type": "TimeoutError"})
    spans[2]["status"] = {"code": 2, "message": "no answer in 5 s"}
    spans[3]["status"] = {"code": 2, "message": "rate limited"}
    steps = convert(tmp_path, spans)[0]["steps"]
    result = steps[2]["observation"]["results"][0]
    assert result["content"] == "[error: no answer in 5 s]" and result["extra"]["otel"]["error"] == "no answer in 5 s"
    assert steps[3]["message"] == "[error: rate limited]\nParis."
    assert steps[3]["extra"]["otel"]["error"] == "rate limited"


def test_an_agent_inside_an_agent_is_an_embedded_subagent_referenced_by_a_delegation_step(tmp_path: Path) -> None:
    spans = [*loop()[:2], tool(3, 1, 2, "search", "c1", "Paris"),
             agent(10, 1, 3, "checker"),
             chat(11, 10, 4, messages(("user", "Check: Paris")), messages(("assistant", "Confirmed."))),
             chat(4, 1, 5, messages(("user", TASK)), messages(("assistant", "Paris.")))]
    document = convert(tmp_path, spans)[0]
    (sub,) = document["subagent_trajectories"]
    assert sub["trajectory_id"] == f"checker-{10:016x}" and sub["agent"]["name"] == "checker"
    delegation = document["steps"][3]
    assert delegation["message"] == "Delegated to agent checker" and delegation["llm_call_count"] == 0
    assert delegation["observation"]["results"] == [
        {"content": "Confirmed.", "subagent_trajectory_ref": [{"trajectory_id": sub["trajectory_id"]}]}]
    assert [s["message"] for s in sub["steps"]] == ["Check: Paris", "Confirmed."]


def test_an_agent_run_by_a_tool_is_referenced_from_that_tool_s_result(tmp_path: Path) -> None:
    spans = [agent(1, None, 0, "boss"), chat(2, 1, 1, messages(("user", TASK)), tool_call("c1", "ask_expert", {})),
             tool(3, 1, 2, "ask_expert", "c1", "Paris"), agent(4, 3, 3, "expert"),
             chat(5, 4, 4, messages(("user", "capital?")), messages(("assistant", "Paris")))]
    document = convert(tmp_path, spans)[0]
    result = document["steps"][1]["observation"]["results"][0]
    assert result["subagent_trajectory_ref"] == [{"trajectory_id": f"expert-{4:016x}"}]
    assert len(document["steps"]) == 2


def test_several_top_level_agents_hang_under_one_trace_level_trajectory(tmp_path: Path) -> None:
    spans = [span(1, None, "POST /run", 0, {}), agent(2, 1, 1, "a"),
             chat(3, 2, 2, messages(("user", TASK)), messages(("assistant", "x"))), agent(4, 1, 3, "b"),
             chat(5, 4, 4, messages(("user", "go on")), messages(("assistant", "y")))]
    document = convert(tmp_path, spans)[0]
    assert document["agent"]["name"] == "test-service" and document["extra"]["otel"]["trace_level"] is True
    assert [s["agent"]["name"] for s in document["subagent_trajectories"]] == ["a", "b"]
    assert document["extra"]["task_instruction"] == TASK


def test_one_agent_under_non_genai_spans_is_the_root(tmp_path: Path) -> None:
    spans = [span(1, None, "POST /run", 0, {}), *(dict(s, parentSpanId=f"{1:016x}") if s["spanId"] == f"{1:016x}"
                                                  else s for s in loop())]
    spans[1]["spanId"], spans[1]["parentSpanId"] = f"{1:016x}", None
    spans[0]["parentSpanId"], spans[0]["spanId"] = f"{1:016x}", f"{50:016x}"
    document, found = convert(tmp_path, [spans[1], spans[0], *spans[2:]])
    assert document["agent"]["name"] == "geo" and "subagent_trajectories" not in document
    assert found.tally.as_dict() == {"span without a GenAI role (agent, model or tool)": 1}


def test_a_ten_thousand_span_trace(tmp_path: Path) -> None:
    spans = [agent(1, None, 0, "long")]
    for index in range(5000):
        spans.append(chat(2 + 2 * index, 1, 2 * index + 1, messages(("user", TASK)),
                          tool_call(f"c{index}", "step", {"i": index})))
        spans.append(tool(3 + 2 * index, 1, 2 * index + 2, "step", f"c{index}", f"done {index}"))
    document = convert(tmp_path, spans)[0]
    steps = document["steps"]
    assert len(steps) == 5001 and all(len(s["observation"]["results"]) == 1 for s in steps[1:])
    assert steps[-1]["observation"]["results"][0]["content"] == "done 4999"


def test_spans_nested_ten_thousand_deep(tmp_path: Path) -> None:
    spans = [agent(1, None, 0, "deep")] + [span(2 + i, 1 + i, "wrapper", 1, {}) for i in range(10_000)]
    spans.append(chat(20_000, 10_001, 2, messages(("user", TASK)), messages(("assistant", "ok"))))
    document, found = convert(tmp_path, spans)
    assert [s["message"] for s in document["steps"]] == [TASK, "ok"]
    assert found.tally.as_dict() == {"span without a GenAI role (agent, model or tool)": 10_000}


def test_the_subagent_roll_up_of_an_imported_trace_matches_a_hand_computation(
    tmp_path: Path, judge_server: ScriptedJudgeServer  # noqa: F811
) -> None:
    spans = [agent(1, None, 0, "boss"),
             chat(2, 1, 1, messages(("user", "task SCORE:0.8")), messages(("assistant", "plan SCORE:0.6"))),
             agent(3, 1, 2, "helper"),
             chat(4, 3, 3, messages(("user", "sub SCORE:0.2")), messages(("assistant", "did SCORE:0.4"))),
             chat(5, 1, 4, messages(("user", "task SCORE:0.8")), messages(("assistant", "done SCORE:1.0")))]
    write(tmp_path, "trace.json", request(spans))
    import_otel([tmp_path / "trace.json"], tmp_path / "out")
    assert run_app(app, ["judge", str(tmp_path / "out" / "trajectories"), "--judge-url", judge_server.base_url,
                         "--judge-model", "m", "-o", str(tmp_path / "run"), "--no-cache", "-q"]) == 0
    root, helper = read_results(tmp_path / "run").nodes
    # boss: user 0.8, plan 0.6, delegation (no marker: 0.9), done 1.0; helper: 0.2, 0.4
    assert root.own_score == pytest.approx((0.8 + 0.6 + 0.9 + 1.0) / 4)
    assert helper.own_score == pytest.approx(0.3) and helper.parent_step_index == 3
    assert root.aggregate == pytest.approx((0.8 + 0.6 + 0.9 + 1.0 + 0.2 + 0.4) / 6)


def test_import_writes_trajectories_and_a_report_per_file(tmp_path: Path) -> None:
    write(tmp_path, "a.json", request(loop()))
    write(tmp_path, "b.json", {"not": "a trace"})
    (tmp_path / "in").mkdir()
    (tmp_path / "a.json").rename(tmp_path / "in" / "a.json")
    (tmp_path / "b.json").rename(tmp_path / "in" / "b.json")
    result = import_otel([tmp_path / "in"], tmp_path / "out")
    assert [p.name for p in result.trajectories] == [f"a-{TRACE}.json"]
    first, second = result.report.files
    assert (first.records, first.trajectories, first.formats) == (4, [f"a-{TRACE}"], ["otlp-json"])
    assert second.not_mapped == {"JSON document that is not a trace (skipped)": 1}
    (trajectory,) = result.report.trajectories
    assert (trajectory.steps, trajectory.tool_calls, trajectory.agents) == (4, 1, ["geo"])
    saved = orjson.loads((tmp_path / "out" / "import_report.json").read_bytes())
    assert saved["trajectories"][0]["path"] == f"trajectories/a-{TRACE}.json"


def test_importing_again_replaces_the_trajectories_folder_and_refuses_a_foreign_one(tmp_path: Path) -> None:
    path = write(tmp_path, "a.json", request(loop()))
    out = tmp_path / "out"
    import_otel([path], out)
    (out / "trajectories" / "stale.json").write_text("{}")
    import_otel([path], out)
    assert sorted(p.name for p in (out / "trajectories").iterdir()) == [f"a-{TRACE}.json"]
    (tmp_path / "mine" / "trajectories").mkdir(parents=True)
    with pytest.raises(OutputError, match="was not written by tracegrade import"):
        import_otel([path], tmp_path / "mine")


def test_no_genai_span_anywhere_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "http.json", request([span(1, None, "GET /", 0, {"http.method": "GET"})]))
    with pytest.raises(InputError, match="no GenAI agent, model or tool spans"):
        import_otel([path], tmp_path / "out")


def test_cached_and_reasoning_tokens_reach_the_step_metrics_and_a_zero_stays(tmp_path: Path) -> None:
    spans = loop()
    spans[1] = chat(2, 1, 1, messages(("user", TASK)), tool_call("c1", "search", {"q": "France"}),
                    **{"gen_ai.usage.cache_read_input_tokens": 8, "gen_ai.usage.reasoning_tokens": 3,
                       "gen_ai.usage.total_tokens": 15})
    spans[3] = chat(4, 1, 3, messages(("user", TASK)), messages(("assistant", "Paris.")),
                    **{"gen_ai.usage.input_tokens": 0, "gen_ai.usage.output_tokens": 0,
                       "llm.token_count.prompt_details.cache_read": 0})
    document, found = convert(tmp_path, spans)
    first, last = (step for step in document["steps"] if step["source"] == "agent")
    assert first["metrics"] == {"prompt_tokens": 10, "completion_tokens": 5, "cached_tokens": 8,
                                "extra": {"reasoning_tokens": 3}}
    assert last["metrics"] == {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0}
    assert found.tally.as_dict() == {"token count with no ATIF field: gen_ai.usage.total_tokens": 1}


def test_the_import_summary_names_token_counts_without_a_field(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    spans = loop()
    spans[3] = chat(4, 1, 3, messages(("user", TASK)), messages(("assistant", "Paris.")),
                    **{"llm.token_count.total": 15, "gen_ai.usage.cache_creation_input_tokens": 4, "a.b": 1,
                       "c.d": 1, "e.f": 1})
    path = write(tmp_path, "trace.json", request(spans))
    assert run_app(app, ["import", "otel", str(path), "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert ("token count with no ATIF field in " + str(path) + ": gen_ai.usage.cache_creation_input_tokens, "
            "llm.token_count.total") in out.replace("\n", "")


def test_an_orphan_among_several_top_level_agents_is_no_child_of_the_first(tmp_path: Path) -> None:
    spans = [agent(1, None, 0, "first"), chat(2, 1, 1, messages(("user", TASK)), messages(("assistant", "A."))),
             agent(3, None, 2, "second"), chat(4, 3, 3, messages(("user", TASK)), messages(("assistant", "B."))),
             chat(5, 99, 4, messages(("user", TASK)), messages(("assistant", "lost parent")))]
    document, found = convert(tmp_path, spans)
    first = next(sub for sub in document["subagent_trajectories"] if sub["agent"]["name"] == "first")
    assert all("lost parent" not in str(step.get("message")) for step in first["steps"])
    assert "lost parent" in orjson.dumps(document).decode()
    assert found.tally.notes_dict() == {"span whose parent is not in the trace, taken as a top-level span": 1}


def test_the_first_of_several_output_choices_is_the_step(tmp_path: Path) -> None:
    spans = loop()
    spans[3] = chat(4, 1, 3, messages(("user", TASK)), messages(("assistant", "Paris."), ("assistant", "Lyon.")))
    steps = convert(tmp_path, spans)[0]["steps"]
    assert steps[-1]["message"] == "Paris." and "Lyon." not in orjson.dumps(steps).decode()


def test_an_embeddings_span_with_message_attributes_is_no_model_call(tmp_path: Path) -> None:
    spans = [*loop(), span(5, 1, "embeddings text-embed", 4, {
        "gen_ai.operation.name": "embeddings", "gen_ai.request.model": "text-embed",
        "gen_ai.input.messages": messages(("user", "embed me")), "gen_ai.usage.input_tokens": 3})]
    document, found = convert(tmp_path, spans)
    assert len(document["steps"]) == 4 and "embed me" not in orjson.dumps(document).decode()
    assert found.tally.as_dict() == {"span without a GenAI role (agent, model or tool)": 1}


def test_the_error_text_is_the_first_exception_event(tmp_path: Path) -> None:
    spans = loop()
    spans[3]["status"] = {"code": 2, "message": "failed"}
    spans[3]["events"] = [event("exception", 3, {"exception.type": "RateLimitError", "exception.message": "slow down"}),
                          event("exception", 3, {"exception.type": "RuntimeError", "exception.message": "cleanup"})]
    steps = convert(tmp_path, spans)[0]["steps"]
    assert steps[3]["extra"]["otel"]["error"] == "RateLimitError: slow down"
    assert steps[3]["message"].startswith("[error: RateLimitError: slow down]")
