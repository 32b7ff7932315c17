from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from evalhub.adapter import DefaultCallbacks, JobResults, JobSpec

from tests.atif.scripted import judge_rule
from tests.conftest import EXAMPLES
from tests.integrations.servers import _Recorder, recording_server, url_of
from tracegrade.integrations.evalhub import AtifAdapter
from tracegrade.judge.testing import ScriptedJudgeServer

JOB_ID = "job-0001"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The SDK's own status model reads its deprecated fields on every update; that noise is not ours.
    for item in items:
        if "integrations" in item.path.parts:
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning:evalhub.*"))


@pytest.fixture
def judge() -> Iterator[ScriptedJudgeServer]:
    with ScriptedJudgeServer(judge_rule()) as server:
        yield server


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A private copy of the bundled examples (2 roots, 4 nodes, 19 scorable steps)."""
    target = tmp_path / "data" / "atif"
    shutil.copytree(EXAMPLES / "atif", target)
    return target


@pytest.fixture
def sink() -> Iterator[_Recorder]:
    with recording_server() as server:
        yield server


@pytest.fixture(autouse=True)
def _no_ambient_evalhub_or_otel(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "EVALHUB_MODE",
        "EVALHUB_JOB_SPEC_PATH",
        "EVALHUB_MLFLOW_BACKEND",
        "MLFLOW_TRACKING_URI",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
        "TRACEGRADE_JUDGE_API_KEY_ENV",
    ):
        monkeypatch.delenv(name, raising=False)


AdapterFactory = Callable[..., tuple[AtifAdapter, DefaultCallbacks]]


@pytest.fixture
def make_adapter(tmp_path: Path, judge: ScriptedJudgeServer, sink: _Recorder) -> AdapterFactory:
    """Write a job spec the way EvalHub's local mode lays it out and build the adapter and callbacks for it."""

    def make(
        parameters: dict[str, Any], *, model: dict[str, Any] | None = None, **spec: Any
    ) -> tuple[AtifAdapter, DefaultCallbacks]:
        document = {
            "id": JOB_ID,
            "provider_id": "atif",
            "benchmark_id": "atif_trajectory_default",
            "benchmark_index": 0,
            "model": model or {"url": judge.base_url, "name": "scripted-judge"},
            "parameters": parameters,
            "callback_url": url_of(sink),
            **spec,
        }
        path = tmp_path / "jobs" / JOB_ID / "0" / "atif" / "atif_trajectory_default" / "meta" / "job.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(document))
        adapter = AtifAdapter(job_spec_path=str(path), progress_interval=0.05)
        callbacks = DefaultCallbacks(
            job_id=JOB_ID, benchmark_id="atif_trajectory_default", provider_id="atif", sidecar_url=url_of(sink)
        )
        return adapter, callbacks

    return make


def run(make_adapter: AdapterFactory, parameters: dict[str, object], **spec: object) -> JobResults:
    """Run one job through the adapter and report its results, as the entry point does."""
    adapter, callbacks = make_adapter(parameters, **spec)
    results = adapter.run_benchmark_job(adapter.job_spec, callbacks)
    callbacks.report_results(results)
    return results


def spec(**fields: object) -> JobSpec:
    """A job spec as the server sends it, with ``fields`` replaced."""
    document: dict[str, object] = {
        "id": "j",
        "provider_id": "atif",
        "benchmark_id": "atif_trajectory_default",
        "benchmark_index": 0,
        "model": {"url": "http://judge:8000/v1", "name": "judge-model"},
        "parameters": {},
        "callback_url": "http://x",
    }
    return JobSpec.model_validate({**document, **fields})
