from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from evalhub.adapter import EvaluationResult, JobCallbacks, JobResults, MlflowBackend

from tests.integrations.conftest import AdapterFactory, spec
from tests.integrations.servers import _Recorder, events, free_port
from tracegrade.errors import TracegradeError
from tracegrade.integrations.evalhub._mlflow import save_run


def test_an_unreachable_mlflow_fails_the_job_with_one_line(
    make_adapter: AdapterFactory, corpus: Path, sink: _Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"http://127.0.0.1:{free_port()}")
    adapter, callbacks = make_adapter({"trajectory_path": str(corpus)}, experiment_name="exp")
    with pytest.raises(TracegradeError):
        adapter.run_benchmark_job(adapter.job_spec, callbacks)
    posted = events(sink)
    assert "persisting_artifacts" in [e.get("phase") for e in posted]
    assert posted[-1]["status"] == "failed" and posted[-1]["error_message"]["message_code"] == "mlflow_save_failed"
    assert "127.0.0.1" not in posted[-1]["error_message"]["message"]


class Failing:
    """MLflow operations that fail the way a server behind a proxy does: the error quotes the URL."""

    def save(self, *args: Any, **kwargs: Any) -> str:
        raise ConnectionError("POST http://user:token-123@mlflow.internal/api failed")


class Callbacks(JobCallbacks):
    """Job callbacks with the given MLflow operations (or none, as callbacks without MLflow support have)."""

    def __init__(self, mlflow: object | None) -> None:
        if mlflow is not None:
            self.mlflow = mlflow

    def report_status(self, update: Any) -> None: ...

    def create_oci_artifact(self, spec: Any) -> Any: ...

    def report_results(self, results: Any) -> None: ...


class Saving:
    """MLflow operations that keep what they are asked to save (and make no run, so no parameters follow)."""

    def __init__(self) -> None:
        self.saved: list[tuple[JobResults, list[Any]]] = []

    def save(self, results: JobResults, spec: Any, artifacts: list[Any]) -> None:
        self.saved.append((results, artifacts))


OUTCOME = JobResults(id="j", benchmark_id="atif_trajectory_default", benchmark_index=0, model_name="m", results=[],
                     num_examples_evaluated=0, duration_seconds=0.0)


def test_callbacks_without_mlflow_save_nothing() -> None:
    assert save_run(Callbacks(None), spec(experiment_name="exp"), OUTCOME, {}, {}, MlflowBackend.ODH) is None


def test_a_failed_save_names_the_experiment_and_the_error_type_never_its_text() -> None:
    with pytest.raises(TracegradeError) as caught:
        save_run(Callbacks(Failing()), spec(experiment_name="exp"), OUTCOME, {}, {}, MlflowBackend.ODH)
    assert caught.value.code == "mlflow_save_failed"
    assert caught.value.message == (
        "the MLflow run of experiment 'exp' could not be saved (ConnectionError; see the job log)")


def test_the_sdk_gets_every_metric_but_overall_score_and_the_artifacts_under_atif(tmp_path: Path) -> None:
    metrics = [EvaluationResult(metric_name=n, metric_value=0.5, metric_type="float")
               for n in ("atif_overall_score", "overall_score")]
    saving = Saving()
    artifacts = {"summary.json": tmp_path / "summary.json", "report.html": tmp_path / "report.html"}
    job = OUTCOME.model_copy(update={"results": metrics})
    assert save_run(Callbacks(saving), spec(experiment_name="exp"), job, {}, artifacts, MlflowBackend.ODH) is None
    ((saved, files),) = saving.saved
    assert [m.metric_name for m in saved.results] == ["atif_overall_score"]  # the SDK logs overall_score itself
    assert [(f.path, f.content_type) for f in files] == [("atif/summary.json", "application/json"),
                                                          ("atif/report.html", "text/html")]
