"""Write a scoring run's artifacts: results JSON, summary JSON, per-step Parquet and the HTML report."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from tracegrade.reports._atif_html import render_report
from tracegrade.reports._files import write_atomic
from tracegrade.scoring import EvaluationResults

__all__ = ["ARTIFACT_NAMES", "read_results", "step_rows", "write_artifacts"]

ARTIFACT_NAMES = ("evaluation_results.json", "summary.json", "steps.parquet", "report.html")

_STEP_SCHEMA = pa.schema(
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


def write_artifacts(results: EvaluationResults, out_dir: Path) -> dict[str, Path]:
    """Write the four artifacts atomically into ``out_dir``; returns their paths by name."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: out_dir / name for name in ARTIFACT_NAMES}
    document = results.model_dump(mode="json")
    write_atomic(paths["evaluation_results.json"], orjson.dumps(document, option=orjson.OPT_INDENT_2))
    summary = {"job_id": results.job_id, **results.summary.model_dump(mode="json")}
    write_atomic(paths["summary.json"], orjson.dumps(summary, option=orjson.OPT_INDENT_2))
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(step_rows(results), schema=_STEP_SCHEMA), buffer)
    write_atomic(paths["steps.parquet"], buffer.getvalue())
    write_atomic(paths["report.html"], render_report(results).encode())
    return paths


def read_results(path: Path) -> EvaluationResults:
    """Read an ``evaluation_results.json`` (or the run folder holding one)."""
    file = path / "evaluation_results.json" if path.is_dir() else path
    return EvaluationResults.model_validate_json(file.read_bytes())
