from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from tests.conftest import EXAMPLES
from tests.integrations.servers import _Recorder, url_of
from tracegrade.atif import EvaluationResults, read_results
from tracegrade.atif.importing import import_otel
from tracegrade.atif.scoring import StepStatus
from tracegrade.atif.scoring._spool import ListedNodes
from tracegrade.cli._app import app, run_app
from tracegrade.errors import ConfigError, OutputError
from tracegrade.integrations.otel import (
    EVENT_NAME,
    MAX_EXPLANATION_CHARS,
    STEP_EVALUATION,
    TRAJECTORY_EVALUATION,
    evaluation_events,
    export_evaluations,
    logs_endpoint,
)
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply

TRACE = "5b8efff798038103d269b633813fc60c"


def received(receiver: _Recorder) -> list[dict[str, Any]]:
    """Every log record the receiver got over OTLP/HTTP: event name, trace and span id, attributes."""
    found = []
    for path, body in receiver.posts:
        if path != "/v1/logs":
            continue
        for resource in ExportLogsServiceRequest.FromString(body).resource_logs:
            service = {a.value.string_value for a in resource.resource.attributes if a.key == "service.name"}
            for scope in resource.scope_logs:
                for record in scope.log_records:
                    attributes = {a.key: getattr(a.value, a.value.WhichOneof("value")) for a in record.attributes}
                    found.append({"event": record.event_name, "trace_id": record.trace_id.hex(),
                                  "span_id": record.span_id.hex(), "attributes": attributes, "service": service})
    return found


def judged(paths: list[Path], run: Path, judge: ScriptedJudgeServer) -> EvaluationResults:
    """``tracegrade judge`` of ``paths`` with the scripted judge (every step 0.75), the results read back."""
    assert run_app(app, ["judge", *map(str, paths), "--judge-url", judge.base_url, "--judge-model", "m",
                         "--job-id", "tg-otel", "-o", str(run), "--no-cache", "-q"]) == 0
    return read_results(run)


def imported_run(tmp_path: Path, judge: ScriptedJudgeServer) -> tuple[EvaluationResults, dict[str, Any]]:
    import_otel([EXAMPLES / "traces" / "otel-genai.json"], tmp_path / "import")
    (path,) = (tmp_path / "import" / "trajectories").iterdir()
    return judged([path], tmp_path / "run", judge), orjson.loads(path.read_bytes())


def test_one_event_per_judged_step_and_per_trajectory_under_the_span_it_grades(
    tmp_path: Path, judge: ScriptedJudgeServer
) -> None:
    results, document = imported_run(tmp_path, judge)
    events = evaluation_events(results)
    root, sub = results.nodes
    assert len(events) == len(root.steps) + len(sub.steps) + 2
    first = events[0]
    assert (first.trace_id, first.span_id) == (TRACE, document["steps"][0]["extra"]["otel"]["span_id"])
    assert first.attributes == {
        "gen_ai.evaluation.name": STEP_EVALUATION, "gen_ai.evaluation.score.value": 0.75,
        "gen_ai.evaluation.score.label": "pass",
        "gen_ai.evaluation.explanation": "Scripted judge: no cue matched this step.",
        "tracegrade.job_id": "tg-otel", "tracegrade.node_id": root.node_id,
        "tracegrade.trajectory_id": root.trajectory_id, "tracegrade.step_index": 1}
    verdict = events[len(root.steps)]
    assert verdict.attributes["gen_ai.evaluation.name"] == TRAJECTORY_EVALUATION
    assert verdict.attributes["gen_ai.evaluation.score.value"] == root.aggregate
    assert (verdict.trace_id, verdict.span_id) == (TRACE, document["extra"]["otel"]["span_id"])
    sub_span = document["subagent_trajectories"][0]["extra"]["otel"]["span_id"]
    assert events[-1].span_id == sub_span and events[-1].attributes["tracegrade.node_id"] == sub.node_id


def test_labels_capped_rationales_and_failures_follow_the_convention(
    tmp_path: Path, judge: ScriptedJudgeServer
) -> None:
    results, _ = imported_run(tmp_path, judge)
    root = results.nodes[0]
    steps = [root.steps[0].model_copy(update={"failure_candidate": True, "rationale": "x" * 5000,
                                              "category": "tool_selection_failure"}),
             root.steps[1].model_copy(update={"status": StepStatus.FAILED, "score": None, "error_code": "timeout"}),
             *root.steps[2:]]
    nodes = ListedNodes([root.model_copy(update={"steps": steps}), *results.nodes[1:]])
    changed = results.model_copy(update={"nodes": nodes})
    low, failed = evaluation_events(changed)[:2]
    assert low.attributes["gen_ai.evaluation.score.label"] == "fail"
    assert low.attributes["tracegrade.failure_category"] == "tool_selection_failure"
    explanation = str(low.attributes["gen_ai.evaluation.explanation"])
    assert len(explanation) == MAX_EXPLANATION_CHARS and explanation.endswith("…")
    assert failed.attributes["error.type"] == "timeout" and "gen_ai.evaluation.score.value" not in failed.attributes


def test_events_reach_a_real_otlp_receiver(tmp_path: Path, sink: _Recorder, judge: ScriptedJudgeServer) -> None:
    results, _ = imported_run(tmp_path, judge)
    sent = export_evaluations(results, environ={"OTEL_EXPORTER_OTLP_ENDPOINT": url_of(sink)})
    got = received(sink)
    assert sent == len(got) == len(evaluation_events(results))
    assert {e["event"] for e in got} == {EVENT_NAME} and got[0]["service"] == {"tracegrade"}
    assert all(e["trace_id"] == TRACE for e in got)
    assert got[0]["attributes"]["gen_ai.evaluation.score.value"] == 0.75


def test_a_receiver_that_refuses_the_events_is_an_error(tmp_path: Path, judge: ScriptedJudgeServer) -> None:
    results, _ = imported_run(tmp_path, judge)
    with ScriptedJudgeServer(lambda _: ScriptedReply.error(400)) as refusing, pytest.raises(
        OutputError, match=r"evaluation events were not accepted"
    ):
        export_evaluations(results, environ={"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": refusing.base_url + "/v1/logs"})


def test_without_an_endpoint_nothing_is_sent(tmp_path: Path, judge: ScriptedJudgeServer) -> None:
    results, _ = imported_run(tmp_path, judge)
    with pytest.raises(ConfigError, match="OTEL_EXPORTER_OTLP_ENDPOINT"):
        export_evaluations(results, environ={})
    assert logs_endpoint({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h:4318/"}) == "http://h:4318/v1/logs"
    assert logs_endpoint({"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://l/x"}) == "http://l/x"


def test_trajectories_not_from_opentelemetry_get_events_without_a_parent(
    tmp_path: Path, judge: ScriptedJudgeServer
) -> None:
    events = evaluation_events(judged([EXAMPLES / "atif"], tmp_path / "run", judge))
    assert events and all(e.trace_id is None and e.span_id is None for e in events)


def test_trajectories_read_from_jsonl_lines_find_their_own_spans(tmp_path: Path, judge: ScriptedJudgeServer) -> None:
    import_otel([EXAMPLES / "traces" / "otel-genai.json", EXAMPLES / "traces" / "openinference.jsonl"],
                tmp_path / "import")
    documents = [orjson.loads(p.read_bytes()) for p in sorted((tmp_path / "import" / "trajectories").iterdir())]
    lines = tmp_path / "both.jsonl"
    lines.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in documents))
    events = evaluation_events(judged([lines], tmp_path / "run", judge))
    roots = {e.attributes["tracegrade.node_id"]: e.trace_id for e in events
             if e.attributes["gen_ai.evaluation.name"] == TRAJECTORY_EVALUATION and "::" not in str(
                 e.attributes["tracegrade.node_id"])}
    assert roots == {"both.jsonl:1": documents[0]["extra"]["otel"]["trace_id"],
                     "both.jsonl:2": documents[1]["extra"]["otel"]["trace_id"]}
