"""Judge counters (always on) and OpenTelemetry instruments (when a meter provider is given)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.metrics import Counter, MeterProvider
    from opentelemetry.sdk.metrics import MeterProvider as SdkMeterProvider

__all__ = ["JudgeStats", "JudgeTelemetry", "configure_meter_provider"]

METER_NAME = "tracegrade.judge"


@dataclass(slots=True)
class JudgeStats:
    """Running totals of one judge's activity (all HTTP attempts, retries included)."""

    requests: int = 0
    """HTTP attempts made."""
    successes: int = 0
    """Attempts answered with HTTP 2xx."""
    http_errors: int = 0
    """Attempts answered with a non-2xx status."""
    transport_errors: int = 0
    """Attempts that failed before a status arrived (timeouts, refused or dropped connections)."""
    protocol_errors: int = 0
    """2xx answers whose body could not be used (invalid JSON, schema violation, too large)."""
    retries: int = 0
    budget_exhausted: int = 0
    """Calls refused because ``max_judge_requests`` was spent."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    """Input tokens the provider says it served from its prompt cache (part of ``input_tokens``)."""
    cached_input_reported: int = 0
    """Answers whose usage said how many input tokens were cached (0: the provider never said)."""
    cache_hits: int = 0
    cache_misses: int = 0
    batch_requests: int = 0
    """Requests sent in provider batch jobs (``--judge-batch``; not counted in ``requests``)."""
    cache_hit_input_tokens: int = 0
    """Input tokens the cached answers cost when they were bought (not spent again by this run)."""
    cache_hit_output_tokens: int = 0
    """Output tokens the cached answers cost when they were bought."""

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain dict (for run metadata and reports)."""
        return asdict(self)


class JudgeTelemetry:
    """OpenTelemetry instruments for judge calls, named ``<prefix>.judge.*`` and tagged with the job.

    Args:
        meter_provider: Provider to create the meter from; the global (no-op unless configured)
            provider when None.
        prefix: Namespace of the instrument and attribute names (``atif`` gives the seed's
            ``atif.judge.call.latency`` ...; each front door passes its own).
        job_id: Value of the ``evalhub.job_id`` attribute.
        scoring_mode: Value of the ``<prefix>.scoring_mode`` attribute (omitted when empty).
    """

    def __init__(
        self,
        meter_provider: MeterProvider | None = None,
        *,
        prefix: str = "tracegrade",
        job_id: str = "",
        scoring_mode: str = "",
    ) -> None:
        from opentelemetry import metrics  # imported here: OpenTelemetry stays out of start-up

        provider = meter_provider if meter_provider is not None else metrics.get_meter_provider()
        meter = provider.get_meter(METER_NAME)
        self._base = {"evalhub.job_id": job_id}
        if scoring_mode:
            self._base[f"{prefix}.scoring_mode"] = scoring_mode
        self._input = {**self._base, "token.type": "input"}  # built once: recorded on every call
        self._output = {**self._base, "token.type": "output"}
        self._cached = {**self._base, "token.type": "cached_input"}
        self._latency = meter.create_histogram(f"{prefix}.judge.call.latency", unit="ms",
                                               description="Latency of one judge HTTP attempt")

        def counter(name: str, description: str, unit: str = "{call}") -> Counter:
            return meter.create_counter(f"{prefix}.judge.{name}", unit=unit, description=description)

        self._count = counter("call.count", "Judge HTTP attempts")
        self._success = counter("call.success", "Judge HTTP attempts answered with 2xx")
        self._errors = counter("call.errors", "Judge transport failures and non-2xx answers")
        self._protocol = counter("protocol.errors", "2xx judge answers with an unusable body")
        self._tokens = counter("token.count", "Judge input and output tokens", "{token}")

    def call(self, latency_ms: float, *, status: int | None, error: str | None) -> None:
        """Record one HTTP attempt: its latency, and success or the error code and status."""
        self._latency.record(latency_ms, self._base)
        self._count.add(1, self._base)
        if error is None:
            self._success.add(1, self._base)
            return
        attributes: dict[str, Any] = {**self._base, "error.type": error}
        if status is not None:
            attributes["http.status_code"] = status
        self._errors.add(1, attributes)

    def protocol_error(self, code: str) -> None:
        """Record a 2xx answer whose body was unusable."""
        self._protocol.add(1, {**self._base, "error.type": code})

    def tokens(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> None:
        """Record token usage reported by the judge (cached input tokens are also counted as input)."""
        if input_tokens:
            self._tokens.add(input_tokens, self._input)
        if output_tokens:
            self._tokens.add(output_tokens, self._output)
        if cached_input_tokens:
            self._tokens.add(cached_input_tokens, self._cached)


def configure_meter_provider(
    *,
    service_name: str = "tracegrade",
    environ: Mapping[str, str] | None = None,
    export_interval_ms: int = 10_000,
) -> SdkMeterProvider:
    """An SDK meter provider that exports over OTLP/HTTP when an OTLP endpoint is configured.

    The endpoint comes from ``environ``; headers and timeout from the standard
    ``OTEL_EXPORTER_OTLP_*`` variables. Without ``OTEL_EXPORTER_OTLP_ENDPOINT`` or
    ``OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`` the provider has no reader, so measurements are
    dropped. Global OpenTelemetry state is not touched: pass the provider to
    :class:`JudgeTelemetry`, and call its ``shutdown()`` at exit to flush.
    """
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource

    env = os.environ if environ is None else environ
    readers: list[MetricReader] = []
    endpoint = _metrics_endpoint(env)
    if endpoint is not None:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        exporter = OTLPMetricExporter(endpoint=endpoint)
        readers.append(PeriodicExportingMetricReader(exporter, export_interval_millis=export_interval_ms))
    resource = Resource.create({"service.name": service_name})
    return MeterProvider(metric_readers=readers, resource=resource)


def _metrics_endpoint(env: Mapping[str, str]) -> str | None:
    """The OTLP/HTTP metrics URL from the signal-specific or the generic endpoint variable."""
    specific = env.get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "").strip()
    if specific:
        return specific
    generic = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    return generic.rstrip("/") + "/v1/metrics" if generic else None
