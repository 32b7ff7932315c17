from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

from tests.integrations.conftest import JOB_ID, AdapterFactory
from tests.integrations.servers import _Recorder, recording_server, url_of
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply

INSTRUMENTS = {
    "atif.judge.call.latency",
    "atif.judge.call.count",
    "atif.judge.call.success",
    "atif.judge.call.errors",
    "atif.judge.protocol.errors",
    "atif.judge.token.count",
}
Key = tuple[str, frozenset[tuple[str, Any]]]


def received(receiver: _Recorder) -> tuple[dict[Key, float], set[str]]:
    """Latest cumulative value of every (instrument, attributes) series, and the resource service names."""
    series: dict[Key, float] = {}
    services: set[str] = set()
    for path, body in receiver.posts:
        assert path == "/v1/metrics"
        request = ExportMetricsServiceRequest.FromString(body)
        for resource in request.resource_metrics:
            services |= {a.value.string_value for a in resource.resource.attributes if a.key == "service.name"}
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    data = metric.histogram if metric.HasField("histogram") else metric.sum
                    for point in data.data_points:
                        attrs = frozenset((a.key, _value(a.value)) for a in point.attributes)
                        series[(metric.name, attrs)] = point.count if metric.HasField("histogram") else point.as_int
    return series, services


def _value(value: Any) -> Any:
    return value.string_value if value.HasField("string_value") else value.int_value


def total(series: dict[Key, float], name: str, **attrs: Any) -> float:
    return sum(v for (n, a), v in series.items() if n == name and set(attrs.items()) <= set(a))


def test_judge_metrics_reach_a_real_otlp_receiver(
    make_adapter: AdapterFactory, corpus: Path, judge: ScriptedJudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge.queue(ScriptedReply.error(500), ScriptedReply.text("garbage, not a verdict"))
    with recording_server() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url_of(receiver))
        adapter, callbacks = make_adapter(
            {
                "trajectory_path": str(corpus),
                "partial_result_policy": "skip_failed_trajectory",
                "concurrency_limit": 1,
                "judge_initial_backoff_seconds": 0.01,
                "scoring_mode": "benchmark",
                "benchmark_name": "terminal-bench",
            }
        )
        results = adapter.run_benchmark_job(adapter.job_spec, callbacks)
        series, services = received(receiver)

    assert {name for name, _ in series} == INSTRUMENTS
    assert services == {"tracegrade-evalhub"}
    assert all(
        dict(attrs)["evalhub.job_id"] == JOB_ID and dict(attrs)["atif.scoring_mode"] == "benchmark"
        for _, attrs in series
    )
    meta = results.evaluation_metadata
    assert total(series, "atif.judge.call.count") == meta["atif_judge_requests"] == judge.count
    assert total(series, "atif.judge.call.latency") == judge.count
    assert total(series, "atif.judge.call.success") == meta["atif_judge_successes"] == judge.count - 1
    assert total(series, "atif.judge.call.errors", **{"error.type": "http_status_500", "http.status_code": 500}) == 1
    assert total(series, "atif.judge.protocol.errors") == meta["atif_judge_protocol_errors"] == 1
    assert total(series, "atif.judge.token.count", **{"token.type": "input"}) == meta["atif_judge_input_tokens"]
    assert total(series, "atif.judge.token.count", **{"token.type": "output"}) == meta["atif_judge_output_tokens"]
    assert meta["atif_steps_failed"] == 1 and meta["atif_complete"] is False


@pytest.mark.parametrize(
    ("variable", "suffix", "exported"),
    [
        ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "/v1/metrics", True),  # control: this receiver does see exports
        ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/v1/traces", False),
        ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "/v1/logs", False),
    ],
)
def test_only_a_metrics_endpoint_turns_export_on(
    make_adapter: AdapterFactory,
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    suffix: str,
    exported: bool,
) -> None:
    with recording_server() as receiver:
        monkeypatch.setenv(variable, url_of(receiver) + suffix)  # the receiver's URL reaches the adapter
        adapter, callbacks = make_adapter({"trajectory_path": str(corpus)})
        adapter.run_benchmark_job(adapter.job_spec, callbacks)
        assert bool(receiver.posts) is exported


def test_without_an_endpoint_no_exporter_is_built(
    make_adapter: AdapterFactory, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opentelemetry.exporter.otlp.proto.http import metric_exporter

    built: list[str | None] = []

    class Recording(metric_exporter.OTLPMetricExporter):
        def __init__(self, endpoint: str | None = None, **kwargs: Any) -> None:
            built.append(endpoint)
            super().__init__(endpoint=endpoint, **kwargs)

    monkeypatch.setattr(metric_exporter, "OTLPMetricExporter", Recording)
    adapter, callbacks = make_adapter({"trajectory_path": str(corpus)})
    adapter.run_benchmark_job(adapter.job_spec, callbacks)
    assert built == []
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")  # control: the spy sees a real setup
    adapter, callbacks = make_adapter({"trajectory_path": str(corpus)})
    adapter.run_benchmark_job(adapter.job_spec, callbacks)
    assert built == ["http://127.0.0.1:9/v1/metrics"]
