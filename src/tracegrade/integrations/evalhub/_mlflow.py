"""Save a job's run to MLflow through the SDK, then add tracegrade's run parameters to it."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

from evalhub.adapter import JobCallbacks, JobResults, JobSpec, MlflowBackend
from evalhub.adapter.mlflow import MlflowFileArtifact

from tracegrade.errors import TracegradeError
from tracegrade.integrations.mlflow import ARTIFACT_DIR

__all__ = ["save_run"]

logger = logging.getLogger(__name__)

_CONTENT_TYPES = {".json": "application/json", ".html": "text/html", ".parquet": "application/vnd.apache.parquet"}
_PARAM_BATCH = 100


def save_run(
    callbacks: JobCallbacks,
    spec: JobSpec,
    job_results: JobResults,
    params: Mapping[str, str],
    artifacts: Mapping[str, Path],
    backend: MlflowBackend,
) -> str | None:
    """Save metrics and artifacts with ``callbacks.mlflow.save``; returns the run id (None without an experiment).

    The SDK logs only its own parameters, so the run parameters (``atif_*`` and the scoring
    parameters) are added to the same run afterwards, with the same backend.

    Raises:
        TracegradeError: ``mlflow_save_failed`` when MLflow refused or could not be reached.
    """
    mlflow_ops = getattr(callbacks, "mlflow", None)
    if not spec.experiment_name or mlflow_ops is None:
        return None
    # The SDK logs overall_score from results.overall_score itself; a second copy would collide.
    metrics = [r for r in job_results.results if r.metric_name != "overall_score"]
    files = [
        MlflowFileArtifact(f"{ARTIFACT_DIR}/{name}", path, _CONTENT_TYPES.get(path.suffix))
        for name, path in artifacts.items()
    ]
    try:
        run_id: str | None = mlflow_ops.save(job_results.model_copy(update={"results": metrics}), spec, artifacts=files)
        if run_id:
            _log_params(run_id, params, backend)
    except Exception as exc:  # its text may quote the tracking URI; the job log keeps the details
        logger.warning("MLflow save failed", exc_info=True)
        raise TracegradeError(
            f"the MLflow run of experiment {spec.experiment_name!r} could not be saved ({type(exc).__name__}; "
            "see the job log)",
            code="mlflow_save_failed",
        ) from None
    return run_id


def _log_params(run_id: str, params: Mapping[str, str], backend: MlflowBackend) -> None:
    items = sorted(params.items())
    batches = [items[i : i + _PARAM_BATCH] for i in range(0, len(items), _PARAM_BATCH)]
    if backend == MlflowBackend.UPSTREAM:
        from mlflow.entities import Param as UpstreamParam
        from mlflow.tracking import MlflowClient as UpstreamClient

        upstream = UpstreamClient()
        for batch in batches:
            upstream.log_batch(run_id, params=[UpstreamParam(k, v) for k, v in batch])
        return
    from evalhub.adapter.mlflow import MlflowClient, Param

    with MlflowClient() as client:
        for batch in batches:
            client.log_batch(run_id, params=[Param(k, v) for k, v in batch])
