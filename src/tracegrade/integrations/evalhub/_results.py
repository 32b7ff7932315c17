"""From tracegrade's results to EvalHub's ``JobResults``: metrics, metadata, and the checks that fail a job."""

from __future__ import annotations

from typing import Any

from evalhub.adapter import EvaluationResult, JobResults, JobSpec

from tracegrade.atif import EvaluationResults
from tracegrade.errors import TracegradeError
from tracegrade.runs import JobStatus

__all__ = ["check_outcome", "evaluation_metadata", "job_metrics", "job_results"]

_METRIC_TYPES = {
    "atif_overall_score": "float",
    "atif_trajectory_count": "int",
    "atif_failure_categorization_rate": "float",
    "overall_score": "float",
    "num_examples_evaluated": "int",
}

_PARAMETERS = (
    "atif_prompt_version",
    "atif_judge",
    "atif_scored_frames",
    "atif_complete",
    "atif_copied_context",
    "atif_criteria_source",
    "scoring_mode",
    "benchmark_name",
    "reference_rubric",
    "custom_rubric_source",
    "subagent_aggregation",
    "partial_result_policy",
    "completion_threshold",
    "failure_threshold",
    "max_subagent_depth",
    "num_examples",
    "tolerant_inputs",
    "score_copied_context",
)
"""Run parameters copied into the metadata (``atif_`` added where missing)."""


def check_outcome(results: EvaluationResults) -> None:
    """Refuse to report a job that failed or produced no score.

    Raises:
        TracegradeError: ``job_failed`` with the run's failure reason, ``job_interrupted``, or
            ``no_score`` when nothing could be scored (a missing score is never reported as 0).
    """
    summary = results.summary
    if summary.job_status == JobStatus.INTERRUPTED:
        raise TracegradeError("the job was interrupted before every step was scored", code="job_interrupted")
    if summary.job_status != JobStatus.COMPLETED:
        raise TracegradeError(summary.failure_reason or "the scoring run failed", code="job_failed")
    if summary.atif_overall_score is None:
        counts = summary.counts
        raise TracegradeError(
            f"no trajectory produced a score ({counts.get('roots', 0)} roots, {counts.get('nodes_invalid', 0)} "
            f"invalid, {counts.get('nodes_unscored', 0)} unscored nodes); atif_overall_score is undefined",
            code="no_score",
        )


def job_metrics(results: EvaluationResults) -> list[EvaluationResult]:
    """The metrics the server stores; one whose value is null is left out."""
    summary = results.summary
    metrics = []
    for name, kind in _METRIC_TYPES.items():
        value = getattr(summary, name)
        if value is not None:
            metrics.append(EvaluationResult(metric_name=name, metric_value=value, metric_type=kind))
    return metrics


def evaluation_metadata(results: EvaluationResults) -> dict[str, Any]:
    """What produced the scores and how the run went, under ``atif_*`` keys."""
    summary = results.summary
    recorded = results.parameters.model_dump(mode="json")
    metadata: dict[str, Any] = {_atif(k): recorded[k] for k in _PARAMETERS}
    metadata.update(
        {
            "atif_complete": summary.atif_complete,
            "atif_job_status": summary.job_status,
            "atif_failure_reason": summary.failure_reason,
            "atif_failure_categorization_rate": summary.atif_failure_categorization_rate,
            "atif_failure_categories": dict(summary.categories),
            "atif_results_format": results.format,
            "atif_results_artifact": "atif/evaluation_results.json",
        }
    )
    metadata.update({f"atif_{key}": value for key, value in summary.counts.items()})
    metadata.update({f"atif_judge_{key}": value for key, value in summary.judge.items()})
    return metadata


def job_results(spec: JobSpec, results: EvaluationResults, duration_seconds: float) -> JobResults:
    """The ``JobResults`` of a completed run (call :func:`check_outcome` first)."""
    summary = results.summary
    recorded = results.parameters.model_dump(mode="json")
    return JobResults(
        id=spec.id,
        benchmark_id=spec.benchmark_id,
        benchmark_index=spec.benchmark_index,
        model_name=spec.model.name,
        results=job_metrics(results),
        overall_score=summary.overall_score,
        num_examples_evaluated=summary.num_examples_evaluated,
        duration_seconds=round(duration_seconds, 3),
        evaluation_metadata=evaluation_metadata(results),
        additional_info={k: recorded[k] for k in _PARAMETERS[:4]},
    )


def _atif(key: str) -> str:
    return key if key.startswith("atif_") else f"atif_{key}"
