from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from tests.conftest import tuned
from tracegrade.atif.asking._evidence import Evidence
from tracegrade.atif.asking._questions import score_step
from tracegrade.errors import JudgeError
from tracegrade.judge import Judge, JudgeSettings, JudgeTelemetry, configure_meter_provider
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply
from tracegrade.rubric import Rubric

BASE = {"evalhub.job_id": "job-7", "atif.scoring_mode": "custom"}


def points(reader: InMemoryMetricReader) -> dict[str, list[tuple[dict[str, Any], Any]]]:
    found: dict[str, list[tuple[dict[str, Any], Any]]] = {}
    data = reader.get_metrics_data()
    assert data is not None
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                found[metric.name] = [(dict(p.attributes or {}), p) for p in metric.data.data_points]
                found[metric.name + ".unit"] = [({}, metric.unit)]
    return found


def total(entries: list[tuple[dict[str, Any], Any]], **attributes: Any) -> int:
    return sum(p.value for attrs, p in entries if all(attrs.get(k) == v for k, v in attributes.items()))


async def scenario(server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric, evidence: Evidence,
                   telemetry: JudgeTelemetry) -> None:
    server.queue(ScriptedReply.error(503), ScriptedReply.answer({"scores": {"correctness": 1, "safety": 0}}),
                 ScriptedReply.text("no verdict today"), ScriptedReply.stall(3))
    async with Judge(tuned(settings, judge_timeout_seconds=0.3), telemetry=telemetry) as judge:
        await score_step(judge, rubric, evidence)  # 503 then 200
        with pytest.raises(JudgeError):
            await score_step(judge, rubric, evidence)  # 200 with an unusable body
        await score_step(judge, rubric, evidence)  # timeout then 200


async def test_every_instrument_with_its_attributes(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                    rubric: Rubric, evidence: Evidence) -> None:
    reader = InMemoryMetricReader()
    telemetry = JudgeTelemetry(MeterProvider(metric_readers=[reader]), prefix="atif", job_id="job-7",
                               scoring_mode="custom")
    await scenario(server, settings, rubric, evidence, telemetry)
    got = points(reader)

    assert total(got["atif.judge.call.count"], **BASE) == 5
    assert total(got["atif.judge.call.success"], **BASE) == 3
    assert total(got["atif.judge.call.errors"], **BASE) == 2
    assert total(got["atif.judge.call.errors"], **{"error.type": "http_status_503", "http.status_code": 503}) == 1
    timeouts = [attrs for attrs, _ in got["atif.judge.call.errors"] if attrs["error.type"] == "timeout"]
    assert timeouts == [{**BASE, "error.type": "timeout"}]
    assert got["atif.judge.protocol.errors"][0][0] == {**BASE, "error.type": "invalid_json"}
    assert total(got["atif.judge.protocol.errors"]) == 1
    assert total(got["atif.judge.token.count"], **{**BASE, "token.type": "input"}) == 300
    assert total(got["atif.judge.token.count"], **{**BASE, "token.type": "output"}) == 60
    ((latency_attrs, histogram),) = got["atif.judge.call.latency"]
    assert latency_attrs == BASE
    assert histogram.count == 5 and histogram.sum > 300
    assert got["atif.judge.call.latency.unit"][0][1] == "ms"


async def test_protocol_errors_are_not_http_errors(server: ScriptedJudgeServer, settings: JudgeSettings,
                                                   rubric: Rubric, evidence: Evidence) -> None:
    reader = InMemoryMetricReader()
    server.queue(ScriptedReply.huge())
    telemetry = JudgeTelemetry(MeterProvider(metric_readers=[reader]), prefix="atif")
    async with Judge(settings, telemetry=telemetry) as judge:
        with pytest.raises(JudgeError):
            await score_step(judge, rubric, evidence)
    got = points(reader)
    assert total(got["atif.judge.call.success"]) == 1
    assert "atif.judge.call.errors" not in got
    assert got["atif.judge.protocol.errors"][0][0]["error.type"] == "response_too_large"


def test_without_an_endpoint_nothing_is_exported() -> None:
    provider = configure_meter_provider(environ={})
    assert isinstance(provider, MeterProvider)
    assert not provider._metric_readers
    provider.shutdown()


def test_with_an_endpoint_metrics_reach_the_collector_over_otlp_http() -> None:
    with ScriptedJudgeServer(lambda _: ScriptedReply(body=b"")) as collector:
        provider = configure_meter_provider(environ={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.base_url},
                                            export_interval_ms=60_000)
        JudgeTelemetry(provider, prefix="atif", job_id="j", scoring_mode="auto").call(12.5, status=200, error=None)
        provider.shutdown()
        (request,) = collector.requests
    assert request.path == "/v1/metrics"
    assert request.headers["content-type"] == "application/x-protobuf"
    assert b"atif.judge.call.latency" in request.body and b"evalhub.job_id" in request.body


def test_importing_the_judge_sets_no_global_provider() -> None:
    import subprocess
    import sys

    code = ("import tracegrade.judge, tracegrade.judge.testing\n"
            "from opentelemetry.metrics import _internal\n"
            "assert _internal._METER_PROVIDER is None")
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_cached_input_tokens_are_counted_when_the_provider_reports_them(
        server: ScriptedJudgeServer, settings: JudgeSettings, rubric: Rubric, evidence: Evidence) -> None:
    from dataclasses import replace

    from tracegrade.integrations.mlflow import judge_token_metrics

    verdict = {"scores": {"correctness": 1, "safety": 0}}
    reader = InMemoryMetricReader()
    telemetry = JudgeTelemetry(MeterProvider(metric_readers=[reader]), prefix="atif", job_id="job-7",
                               scoring_mode="custom")
    async with Judge(settings, telemetry=telemetry) as judge:
        server.queue(ScriptedReply.answer(verdict))  # the provider says nothing of its cache
        await score_step(judge, rubric, evidence)
        assert (judge.stats.cached_input_tokens, judge.stats.cached_input_reported) == (0, 0)
        assert judge_token_metrics(judge.stats.as_dict())["judge_cached_input_tokens"] is None  # unknown, not 0
        server.queue(replace(ScriptedReply.answer(verdict), cached_tokens=64))
        await score_step(judge, rubric, replace(evidence, tools=evidence.tools + " "))
        assert (judge.stats.cached_input_tokens, judge.stats.cached_input_reported) == (64, 1)
        assert judge_token_metrics(judge.stats.as_dict()) == {
            "judge_input_tokens": 200, "judge_output_tokens": 40, "judge_cached_input_tokens": 64}
    got = points(reader)
    assert total(got["atif.judge.token.count"], **{**BASE, "token.type": "cached_input"}) == 64
    assert total(got["atif.judge.token.count"], **{**BASE, "token.type": "input"}) == 200


def test_cache_read_input_tokens_of_a_gateway_count_as_cached() -> None:
    from tracegrade.judge._extract import cached_tokens

    assert cached_tokens({"usage": {"prompt_tokens": 9, "cache_read_input_tokens": 5}}) == 5
    assert cached_tokens({"usage": {"prompt_tokens_details": {"cached_tokens": 7}}}) == 7
    assert cached_tokens({"usage": {"prompt_tokens": 9}}) is None
    assert cached_tokens({"usage": {"prompt_tokens_details": {"cached_tokens": True}}}) is None
