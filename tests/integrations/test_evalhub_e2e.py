"""End to end: the real eval-hub server (local mode) runs the adapter, which saves to a real MLflow server."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import yaml

from tests.atif.scripted import judge_rule
from tests.conftest import unavailable
from tests.integrations.servers import free_port, stop, wait_http
from tracegrade.atif import PROMPT_VERSION
from tracegrade.integrations.evalhub import BENCHMARK_ID, provider_config
from tracegrade.judge.testing import ScriptedJudgeServer

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
JOBS_ROOT = Path("/tmp/evalhub-jobs")  # fixed by eval-hub's local mode
TERMINAL = {"completed", "failed", "cancelled", "partially_failed"}
EXPECTED_METRICS = {
    "atif_overall_score": 0.75,
    "atif_trajectory_count": 4,
    "atif_failure_categorization_rate": 1,
    "overall_score": 0.75,
    "num_examples_evaluated": 4,
}
ARTIFACTS = ["atif/evaluation_results.json", "atif/report.html", "atif/steps.parquet", "atif/summary.json"]


def binary(name: str) -> str:
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if found is None:
        unavailable(f"{name} is not installed (pip install eval-hub-server mlflow)")
    return found


@dataclass
class Stack:
    evalhub: str
    mlflow: str


def _config(folder: Path, port: int) -> Path:
    config = folder / "config"
    (config / "providers").mkdir(parents=True)
    (config / "config.yaml").write_text(
        yaml.safe_dump(
            {
                "service": {"port": port, "host": "127.0.0.1", "termination_file": str(folder / "termination-log")},
                "secrets": {"dir": str(folder / "no-secrets"), "mappings": {}},
                "env_mappings": {
                    "PORT": "service.port",
                    "API_HOST": "service.host",
                    "DB_URL": "database.url",
                    "MLFLOW_TRACKING_URI": "mlflow.tracking_uri",
                },
                "database": {"driver": "sqlite", "url": "file::eval_hub:?mode=memory&cache=shared"},
                "mlflow": None,
                "prometheus": {"enabled": False},
                "otel": {"enabled": False},
            }
        )
    )
    for provider, backend in (("atif", "odh"), ("atif_upstream", "upstream")):
        document = provider_config(provider_id=provider, env={"EVALHUB_MLFLOW_BACKEND": backend})
        (config / "providers" / f"{provider}.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    return config


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """MLflow (SQLite, artifacts in a temporary folder) and eval-hub in local mode, both on free loopback ports."""
    evalhub_bin, mlflow_bin = binary("eval-hub"), binary("mlflow")
    folder = tmp_path_factory.mktemp("stack")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "EVALHUB_", "MLFLOW_"))}
    env["TMPDIR"] = str(folder)
    mlflow_url = f"http://127.0.0.1:{free_port()}"
    evalhub_port = free_port()
    processes: list[subprocess.Popen[bytes]] = []
    try:
        with (folder / "mlflow.log").open("wb") as log:
            processes.append(
                subprocess.Popen(
                    [
                        mlflow_bin,
                        "server",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        mlflow_url.rsplit(":", 1)[1],
                        "--workers",
                        "1",
                        "--backend-store-uri",
                        f"sqlite:///{folder / 'mlflow.db'}",
                        "--artifacts-destination",
                        str(folder / "artifacts"),
                    ],
                    env={**env, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"},
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        with (folder / "evalhub.log").open("wb") as log:
            processes.append(
                subprocess.Popen(
                    [evalhub_bin, "-local", "-configdir", str(_config(folder, evalhub_port))],
                    env={**env, "MLFLOW_TRACKING_URI": mlflow_url},
                    cwd=folder,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        evalhub_url = f"http://127.0.0.1:{evalhub_port}"
        wait_http(f"{evalhub_url}/api/v1/health", processes[1], 30, "see evalhub.log")
        wait_http(f"{mlflow_url}/health", processes[0], 90, "see mlflow.log")
        yield Stack(evalhub=evalhub_url, mlflow=mlflow_url)
    finally:
        for process in reversed(processes):
            stop(process)


@pytest.fixture(scope="module")
def jobs(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """Three jobs submitted together: odh backend, upstream backend, invalid parameters; their final records."""
    from evalhub.client import SyncEvalHubClient
    from evalhub.models.api import BenchmarkConfig, ExperimentConfig, JobSubmissionRequest, ModelConfig

    corpus = tmp_path_factory.mktemp("data") / "atif"
    shutil.copytree(Path(__file__).parents[2] / "examples" / "atif", corpus)
    submitted: dict[str, str] = {}
    with ScriptedJudgeServer(judge_rule()) as judge, SyncEvalHubClient(base_url=stack.evalhub) as client:
        try:
            for name, provider, parameters in (
                ("odh", "atif", {"trajectory_path": str(corpus)}),
                ("upstream", "atif_upstream", {"trajectory_path": str(corpus)}),
                ("invalid", "atif", {"trajectory_path": str(corpus), "completion_threshold": 7}),
            ):
                request = JobSubmissionRequest(
                    name=f"tracegrade-e2e-{name}",
                    model=ModelConfig(url=judge.base_url, name="scripted-judge"),
                    benchmarks=[BenchmarkConfig(id=BENCHMARK_ID, provider_id=provider, parameters=parameters)],
                    experiment=ExperimentConfig(name="tracegrade-e2e"),
                )
                submitted[name] = client.jobs.submit(request).resource.id
            yield {name: _wait(stack.evalhub, job_id) for name, job_id in submitted.items()}
        finally:
            for job_id in submitted.values():
                shutil.rmtree(JOBS_ROOT / job_id, ignore_errors=True)


def _wait(base_url: str, job_id: str, timeout: float = 120) -> dict[str, Any]:
    """Poll the job's top-level state (wait_for_completion can return early)."""
    deadline = time.monotonic() + timeout
    while True:
        job: dict[str, Any] = httpx.get(f"{base_url}/api/v1/evaluations/jobs/{job_id}", timeout=10).json()
        if job["status"]["state"] in TERMINAL:
            return job
        if time.monotonic() > deadline:
            logs = _logs(base_url, job_id)
            raise AssertionError(f"job {job_id} still {job['status']['state']} after {timeout} s; log:\n{logs}")
        time.sleep(0.25)


def _logs(base_url: str, job_id: str) -> str:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{base_url}/api/v1/evaluations/jobs/{job_id}/logs", timeout=10).text[-4000:]
    return ""


@pytest.mark.parametrize("name", ["odh", "upstream"])
def test_the_server_stores_the_metrics_and_the_pass_verdict(jobs: dict[str, dict[str, Any]], name: str) -> None:
    job = jobs[name]
    assert job["status"]["state"] == "completed", job["status"]
    (benchmark,) = job["results"]["benchmarks"]
    assert benchmark["metrics"] == EXPECTED_METRICS
    assert benchmark["test"]["primary_score_metric"] == "atif_overall_score" and benchmark["test"]["pass"] is True
    assert benchmark["additional_info"]["atif_prompt_version"] == PROMPT_VERSION
    assert benchmark["mlflow_run_id"]


@pytest.mark.parametrize("name", ["odh", "upstream"])
def test_mlflow_holds_the_params_metrics_and_artifacts(
    jobs: dict[str, dict[str, Any]], stack: Stack, name: str, tmp_path: Path
) -> None:
    from mlflow.tracking import MlflowClient

    job = jobs[name]
    run_id = job["results"]["benchmarks"][0]["mlflow_run_id"]
    client = MlflowClient(tracking_uri=stack.mlflow)
    run = client.get_run(run_id)
    assert run.info.run_name == f"{job['resource']['id']}_0"
    assert client.get_experiment(run.info.experiment_id).name == "tracegrade-e2e"
    params = run.data.params
    assert params["atif_prompt_version"] == PROMPT_VERSION and params["atif_judge"] == "scripted-judge"
    assert params["atif_scored_frames"] == "all" and params["atif_complete"] == "true"
    assert params["completion_threshold"] == "0.5" and params["scoring_mode"] == "auto"
    assert params["trajectory_path"].endswith("/atif")
    for metric in ("atif_overall_score", "atif_trajectory_count", "atif_failure_categorization_rate"):
        assert run.data.metrics[metric] == EXPECTED_METRICS[metric]
    assert sorted(a.path for a in client.list_artifacts(run_id, "atif")) == ARTIFACTS
    results = Path(client.download_artifacts(run_id, "atif/evaluation_results.json", str(tmp_path)))
    assert orjson.loads(results.read_bytes())["job_id"] == job["resource"]["id"]


def test_invalid_parameters_fail_the_job_with_a_safe_message(jobs: dict[str, dict[str, Any]]) -> None:
    job = jobs["invalid"]
    assert job["status"]["state"] == "failed"
    (benchmark,) = job["status"]["benchmarks"]
    error = benchmark["error_message"]
    assert error["message_code"] == "invalid_parameter" and "completion_threshold" in error["message"]
    assert "Traceback" not in str(job) and "\n" not in error["message"]
    assert not job["results"]["benchmarks"][0].get("metrics")
