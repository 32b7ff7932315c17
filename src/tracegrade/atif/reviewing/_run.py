"""A finished judge run folder, read for review: its manifest verified and its results decoded."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import InputError
from tracegrade.runs import Manifest, read_verified

__all__ = ["ReviewedRun", "read_review_run"]

_RESULTS = "evaluation_results.json"


@dataclass(frozen=True, slots=True)
class ReviewedRun:
    """The run folder, its manifest and its results."""

    folder: Path
    manifest: Manifest
    results: EvaluationResults


def read_review_run(path: Path) -> ReviewedRun:
    """Read a complete ATIF judge run folder (plain or merged), every file checked against its manifest.

    Raises:
        InputError: not a folder, no verified manifest, not an ATIF judge run, one shard of a job, or results
            that are not tracegrade's.
    """
    if not path.is_dir():
        raise InputError(f"{path}: not a run folder", code="not_a_run_folder")
    manifest, data = read_verified(path, _RESULTS)
    if manifest.get("kind") != "atif-judge":
        raise InputError(f"{path}: a {manifest.get('kind')} run folder, not an ATIF judge run", code="not_a_judge_run")
    if data is None:
        raise InputError(f"{path}: no {_RESULTS} there")
    try:
        results = EvaluationResults.model_validate_json(data)
    except ValueError as exc:
        problem = type(exc).__name__
        raise InputError(f"{path / _RESULTS}: not a tracegrade evaluation_results.json ({problem})") from None
    if results.shard is not None:
        raise InputError(f"{path}: shard {results.shard} of job {results.job_id}; merge the shards first "
                         "(tracegrade merge)", code="shard_not_merged")
    return ReviewedRun(path, manifest, results)
