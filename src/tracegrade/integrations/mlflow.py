"""Record a scoring run in MLflow with the ``mlflow`` library: run parameters, headline metrics, artifacts.

The same parameter and metric mapping is used by the EvalHub adapter, so a run logged here and a run
saved by an EvalHub job look alike::

    results, artifacts = await run_atif_job(...)
    run_id = log_run(results, artifacts, tracking_uri="http://127.0.0.1:5000")
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import orjson

from tracegrade.atif import AtifComparison, EvaluationResults
from tracegrade.runs import JobStatus

__all__ = [
    "ARTIFACT_DIR",
    "MAX_PARAM_CHARS",
    "METRIC_NAMES",
    "comparison_metrics",
    "default_tracking_uri",
    "judge_token_metrics",
    "log_comparison",
    "log_run",
    "param_value",
    "run_metrics",
    "run_params",
]

MAX_PARAM_CHARS = 6000
"""MLflow's limit on the length of one parameter value."""

ARTIFACT_DIR = "atif"
"""Folder of the run's artifacts (``atif/evaluation_results.json``...)."""

METRIC_NAMES = (
    "atif_overall_score",
    "atif_trajectory_count",
    "atif_failure_categorization_rate",
    "overall_score",
    "num_examples_evaluated",
)
"""Metrics logged for a run; a metric whose value is null is left out rather than logged as 0."""

_PARAM_BATCH = 100  # MLflow accepts at most 100 params in one log-batch request


def param_value(value: Any) -> str:
    """One parameter value as MLflow text: null is empty, booleans are lower case, capped at 6000 chars."""
    if value is None:
        text = ""
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = value
    elif isinstance(value, int | float):
        text = str(value)
    else:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str).decode()
    return text[:MAX_PARAM_CHARS]


def run_params(results: EvaluationResults) -> dict[str, str]:
    """The run's parameters (scoring parameters and the ``atif_*`` provenance), ready for MLflow."""
    return {key: param_value(value) for key, value in sorted(results.parameters.model_dump(mode="json").items())}


def run_metrics(results: EvaluationResults) -> dict[str, float]:
    """The headline metrics that have a value (a null score is omitted, never turned into 0)."""
    summary = results.summary
    values = {name: getattr(summary, name) for name in METRIC_NAMES}
    values |= judge_token_metrics(summary.judge)
    return {name: float(value) for name, value in values.items() if value is not None}


def judge_token_metrics(counts: Mapping[str, int]) -> dict[str, float | None]:
    """The judge's token counts: none without a judge request; cached input only when the provider reported it."""
    if not counts.get("requests"):
        return {}
    reported = bool(counts.get("cached_input_reported"))
    return {"judge_input_tokens": counts.get("input_tokens", 0), "judge_output_tokens": counts.get("output_tokens", 0),
            "judge_cached_input_tokens": counts.get("cached_input_tokens", 0) if reported else None}


def default_tracking_uri(environ: Mapping[str, str] | None = None) -> str:
    """``MLFLOW_TRACKING_URI`` when set, else a SQLite store ``mlruns.db`` in the current directory."""
    env = os.environ if environ is None else environ
    configured = env.get("MLFLOW_TRACKING_URI", "").strip()
    return configured or f"sqlite:///{Path.cwd() / 'mlruns.db'}"


def log_run(
    results: EvaluationResults,
    artifacts: Mapping[str, Path],
    *,
    tracking_uri: str | None = None,
    experiment: str = "tracegrade",
) -> str:
    """Log one run (params, metrics, artifacts under ``atif/``) and return its MLflow run id.

    The run is named after the job id and ends ``FINISHED`` for a completed job, ``FAILED``
    otherwise. For a SQLite store the artifacts go to ``mlartifacts/`` beside the database file.

    Args:
        results: The run's results.
        artifacts: Artifact files by name, as returned by :func:`tracegrade.reports.write_artifacts`.
        tracking_uri: MLflow tracking URI (default: :func:`default_tracking_uri`).
        experiment: Experiment name; created when missing.
    """
    with _warnings_only("mlflow", "alembic"):  # its store set-up logs INFO lines into the user's terminal
        client, run_id = _new_run(tracking_uri, experiment, results.job_id, _tags(results))
        _log_contents(client, run_id, results, artifacts)
    return run_id


def _new_run(tracking_uri: str | None, experiment: str, name: str, tags: dict[str, str]) -> tuple[Any, str]:
    """A client of the tracking store and a new run in ``experiment`` (created when missing)."""
    from mlflow.tracking import MlflowClient

    uri = tracking_uri or default_tracking_uri()
    client = MlflowClient(tracking_uri=uri)
    run = client.create_run(_experiment_id(client, experiment, uri), run_name=name, tags=tags)
    return client, str(run.info.run_id)


def _log_contents(client: Any, run_id: str, results: EvaluationResults, artifacts: Mapping[str, Path]) -> None:
    from mlflow.entities import Metric, Param, RunTag

    status = "FAILED"
    try:
        params = [Param(key, value) for key, value in run_params(results).items()]
        for start in range(0, len(params), _PARAM_BATCH):
            client.log_batch(run_id, params=params[start : start + _PARAM_BATCH])
        now = _now_ms()
        metrics = [Metric(key, value, now, 0) for key, value in run_metrics(results).items()]
        client.log_batch(run_id, metrics=metrics, tags=[RunTag("tracegrade.job_status", results.summary.job_status)])
        for path in artifacts.values():
            client.log_artifact(run_id, str(path), artifact_path=ARTIFACT_DIR)
        status = "FINISHED" if results.summary.job_status is JobStatus.COMPLETED else "FAILED"
    finally:
        client.set_terminated(run_id, status=status)


@contextlib.contextmanager
def _warnings_only(*names: str) -> Iterator[None]:
    """Raise the named loggers to WARNING for the duration (INFO lines of third-party libraries stay out)."""
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(max(logger.getEffectiveLevel(), logging.WARNING))
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _experiment_id(client: Any, name: str, uri: str) -> str:
    found = client.get_experiment_by_name(name)
    if found is not None:
        return str(found.experiment_id)
    return str(client.create_experiment(name, artifact_location=_artifact_location(uri)))


def _artifact_location(uri: str) -> str | None:
    """Artifacts beside a SQLite database (MLflow would otherwise use ``./mlruns`` of the working directory)."""
    parts = urlsplit(uri)
    path = unquote(parts.path)[1:]  # sqlite:///relative.db and sqlite:////absolute.db
    if parts.scheme != "sqlite" or not path or path == ":memory:":
        return None
    return (Path(path).parent / "mlartifacts").resolve().as_uri()


def _tags(results: EvaluationResults) -> dict[str, str]:
    tags = {"tracegrade.job_id": results.job_id, "tracegrade.format": results.format}
    if results.shard is not None:
        tags["tracegrade.shard"] = results.shard
    return tags


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)


def comparison_metrics(comparison: AtifComparison) -> dict[str, float]:
    """The deltas and counts of a comparison as MLflow metrics (a null figure is omitted, never logged as 0)."""
    interval = comparison.interval
    values: dict[str, float | None] = {
        "delta": comparison.mean_delta, "delta_low": interval.low, "delta_high": interval.high,
        "p_value": comparison.p_value, "baseline_score": comparison.baseline_score,
        "candidate_score": comparison.candidate_score, "pairs_scored": comparison.n,
        "improved": len(comparison.improved), "regressed": len(comparison.regressed),
        "unchanged": len(comparison.unchanged), "newly_failing": len(comparison.newly_failing),
        "newly_passing": len(comparison.newly_passing),
    }
    return {name: float(value) for name, value in values.items() if value is not None}


def log_comparison(
    comparison: AtifComparison,
    files: Mapping[str, Path],
    *,
    tracking_uri: str | None = None,
    experiment: str = "tracegrade",
) -> str:
    """Log a ``tracegrade compare`` as one MLflow run and return its id.

    Params name both runs (job ids and folders) and the comparison's settings; metrics are the deltas and
    counts of :func:`comparison_metrics` plus ``gate_exit_code``; the files go under ``compare/``.
    """
    from mlflow.entities import Metric, Param, RunTag

    name = f"compare {comparison.baseline.job_id}..{comparison.candidate.job_id}"
    client, run_id = _new_run(tracking_uri, experiment, name, {"tracegrade.kind": "compare"})
    try:
        params = {
            "baseline_job_id": comparison.baseline.job_id, "candidate_job_id": comparison.candidate.job_id,
            "baseline_path": comparison.baseline.path, "candidate_path": comparison.candidate.path,
            "primary": comparison.primary, "comparable": comparison.comparable,
            "allowed_differences": [d.field for d in comparison.allowed_differences],
            **comparison.parameters.model_dump(),
        }
        now = _now_ms()
        metrics = {**comparison_metrics(comparison), "gate_exit_code": float(comparison.gate.exit_code)}
        client.log_batch(run_id, params=[Param(k, param_value(v)) for k, v in params.items()],
                         metrics=[Metric(k, v, now, 0) for k, v in metrics.items()],
                         tags=[RunTag("tracegrade.gate", "failed" if comparison.gate.fired else "passed")])
        for path in files.values():
            client.log_artifact(run_id, str(path), artifact_path="compare")
    finally:
        client.set_terminated(run_id, status="FINISHED")
    return run_id
