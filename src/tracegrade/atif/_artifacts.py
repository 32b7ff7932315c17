"""Write a scoring run's artifacts: results JSON, summary JSON, per-step Parquet and the HTML report."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracegrade.atif._report import render_report
from tracegrade.atif._results import EvaluationResults
from tracegrade.runs import JobStatus, RunFolder

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ARTIFACT_NAMES", "open_run_folder", "read_results", "step_rows", "write_artifacts"]

ARTIFACT_NAMES = ("evaluation_results.json", "summary.json", "steps.parquet", "report.html")

def step_rows(results: EvaluationResults) -> list[dict[str, Any]]:
    """One flat row per step, with its node's identifiers."""
    rows = []
    for node in results.nodes:
        for step in node.steps:
            rows.append(
                {
                    "job_id": results.job_id,
                    "root_id": node.root_id,
                    "node_id": node.node_id,
                    "parent_id": node.parent_id,
                    "depth": node.depth,
                    "agent": node.agent,
                    "source_path": node.source_path,
                    "node_status": node.status.value,
                    "index": step.index,
                    "segment": step.segment,
                    "step_id": step.step_id,
                    "source": step.source,
                    "status": step.status.value,
                    "score": step.score,
                    "criterion_scores": list((step.criterion_scores or {}).items()) or None,
                    "rationale": step.rationale,
                    "omitted_history": step.omitted_history,
                    "error_code": step.error_code,
                    "failure_candidate": step.failure_candidate,
                    "category": step.category,
                    "categorization_status": step.categorization_status.value,
                    "categorization_error_code": step.categorization_error_code,
                }
            )
    return rows


def write_artifacts(results: EvaluationResults, out_dir: Path | RunFolder) -> dict[str, Path]:
    """Write the four artifacts into the run folder, then its manifest; returns their paths by name.

    Raises:
        OutputError: when the folder cannot be written.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = out_dir if isinstance(out_dir, RunFolder) else open_run_folder(out_dir, results.job_id)
    folder.write_json("evaluation_results.json", results.model_dump(mode="json"))
    folder.write_json("summary.json", {"job_id": results.job_id, **results.summary.model_dump(mode="json")})
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(step_rows(results), schema=_step_schema()), buffer)
    folder.write_bytes("steps.parquet", buffer.getvalue())
    folder.write_text("report.html", render_report(results))
    folder.finish(JobStatus(results.summary.job_status), {"atif_complete": results.summary.atif_complete})
    return {name: folder.path / name for name in ARTIFACT_NAMES}


def open_run_folder(path: Path, job_id: str) -> RunFolder:
    """The run folder of an ATIF judge job, checked to be writable before any judge call is paid."""
    return RunFolder(path, kind="atif-judge", job_id=job_id)


def read_results(path: Path) -> EvaluationResults:
    """Read an ``evaluation_results.json`` (or the run folder holding one)."""
    file = path / "evaluation_results.json" if path.is_dir() else path
    return EvaluationResults.model_validate_json(file.read_bytes())


def _step_schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema(
        [
            ("job_id", pa.string()),
            ("root_id", pa.string()),
            ("node_id", pa.string()),
            ("parent_id", pa.string()),
            ("depth", pa.int32()),
            ("agent", pa.string()),
            ("source_path", pa.string()),
            ("node_status", pa.string()),
            ("index", pa.int32()),
            ("segment", pa.int32()),
            ("step_id", pa.int32()),
            ("source", pa.string()),
            ("status", pa.string()),
            ("score", pa.float64()),
            ("criterion_scores", pa.map_(pa.string(), pa.float64())),
            ("rationale", pa.string()),
            ("omitted_history", pa.int32()),
            ("error_code", pa.string()),
            ("failure_candidate", pa.bool_()),
            ("category", pa.string()),
            ("categorization_status", pa.string()),
            ("categorization_error_code", pa.string()),
        ]
    )
