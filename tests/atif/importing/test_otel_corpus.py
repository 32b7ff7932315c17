"""Real traces written by other projects (../shared/corpus/traces): each imports and holds what its spans hold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.atif.importing.test_otel import assert_valid
from tracegrade.atif.importing._otel import import_otel


def walk(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield document
    for sub in document.get("subagent_trajectories") or ():
        yield from walk(sub)


def steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for node in walk(document) for step in node["steps"]]


def calls(document: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(tool, arguments, result) of every tool call of the tree, in order."""
    found = []
    for step in steps(document):
        results = {r.get("source_call_id"): r["content"] for r in step.get("observation", {}).get("results", ())}
        found.extend((c["function_name"], c["arguments"], results.get(c["tool_call_id"], "")) for c in
                     step.get("tool_calls", ()))
    return found


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    from tests.conftest import SHARED

    corpus = SHARED / "corpus" / "traces"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is not available")
    out = tmp_path_factory.mktemp("corpus-import")
    result = import_otel([corpus / "otel-genai", corpus / "openinference"], out)
    documents = {path.stem.rsplit("-", 1)[0] if "-" in path.stem else path.stem: orjson.loads(path.read_bytes())
                 for path in result.trajectories}
    return documents


def test_every_file_imports_into_valid_atif(shared_corpus: Path, imported: dict[str, dict[str, Any]]) -> None:
    assert sorted(imported) == sorted([
        "GOOGLE_trace", "LANGCHAIN_trace", "OPENAI_trace", "S4a", "helm_3",
        "openinference_client_span_input_output_only", "openinference_client_span_tool_calls",
        "otel_genai_client_span_tool_calls", "otel_genai_tool_execution_span",
        "tempo_export_with_batches"])
    for document in imported.values():
        assert_valid(document)


def test_adk_handoff_matches_the_upstream_truth_file(shared_corpus: Path, imported: dict[str, dict[str, Any]]) -> None:
    truth = orjson.loads((shared_corpus / "traces" / "otel-genai" / "agentevals" / "S4a.truth.json").read_bytes())
    (turn,) = truth["turns"]
    document = imported["S4a"]
    assert {node["agent"]["name"] for node in walk(document)} == set(turn["agents"])
    assert document["extra"]["task_instruction"] == turn["user_text"]
    answers = [s["message"] for s in steps(document) if s.get("llm_call_count") == 1 and s["message"]]
    assert answers[-1] == turn["final_text"]
    found = calls(document)
    assert [(name, args) for name, args, _ in found] == [(c["name"], c["args"]) for c in turn["tool_calls"]]
    # ADK wraps a plain return value as {"result": ...}
    assert [orjson.loads(result) for _, _, result in found] == [{"result": c["result"]} if c["result"] is None
                                                                 else c["result"] for c in turn["tool_calls"]]
    tokens = [s["metrics"] for s in steps(document) if "metrics" in s]
    assert (sum(t["prompt_tokens"] for t in tokens), sum(t["completion_tokens"] for t in tokens)) == (
        truth["tokens"]["input"], truth["tokens"]["output"])
    assert [s["message"] for s in document["steps"]] == ["Delegated to agent coordinator",
                                                          "Delegated to agent billing_agent"]


@pytest.mark.parametrize(
    ("name", "model_calls", "tools", "agents"),
    [
        ("tempo_export_with_batches", 2, ["helm_list_releases"], ["helm_agent"]),
        ("helm_3", 2, ["helm_list_releases"], ["helm_agent"]),
        ("OPENAI_trace", 3, ["get_current_time", "write_file"], ["any_agent"]),
        ("GOOGLE_trace", 3, ["get_current_time", "write_file", "final_output"], ["any_agent"]),
        ("LANGCHAIN_trace", 4, ["get_current_time", "write_file"], ["any_agent"]),
        ("otel_genai_client_span_tool_calls", 1, ["get_weather"], ["unknown"]),
        ("otel_genai_tool_execution_span", 0, ["get_weather"], ["unknown"]),
        ("openinference_client_span_tool_calls", 1, ["get_weather"], ["unknown"]),
        ("openinference_client_span_input_output_only", 1, ["get_weather"], ["unknown"]),
    ],
)
def test_model_calls_tool_calls_and_agents_of_each_trace(
    shared_corpus: Path, imported: dict[str, dict[str, Any]], name: str, model_calls: int, tools: list[str],
    agents: list[str],
) -> None:
    document = imported[name]
    assert sum(1 for s in steps(document) if s.get("llm_call_count") == 1) == model_calls
    assert [tool for tool, _, _ in calls(document)] == tools
    assert all(result for _, _, result in calls(document))  # every call got its result
    assert [node["agent"]["name"] for node in walk(document)] == agents


def test_usage_is_counted_once_per_logical_call(shared_corpus: Path, imported: dict[str, dict[str, Any]]) -> None:
    # kagent repeats each call's tokens on call_llm, generate_content and openai.chat
    metrics = [s["metrics"] for s in steps(imported["tempo_export_with_batches"]) if "metrics" in s]
    assert [(m["prompt_tokens"], m["completion_tokens"]) for m in metrics] == [(2256, 13), (2392, 116)]


def test_what_the_real_files_hold_beyond_the_mapping_is_reported(shared_corpus: Path, tmp_path: Path) -> None:
    corpus = shared_corpus / "traces" / "otel-genai"
    result = import_otel([corpus / "agentevals" / "helm_3.json", corpus / "any-agent" / "GOOGLE_trace.json"], tmp_path)
    helm, google = result.report.files
    assert helm.not_mapped["span without a GenAI role (agent, model or tool)"] == 119
    assert helm.not_mapped["attribute kagent.user_id"] == 6
    assert google.notes == {"span whose parent is not in the trace, put under the trace root": 6}
