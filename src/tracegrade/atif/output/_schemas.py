"""JSON Schemas of the files a scoring run and a comparison write.

``python -m tracegrade.atif.output._schemas DIR`` writes them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel

from tracegrade.atif.localising._records import LocalisationResults
from tracegrade.atif.output._compare import AtifComparison
from tracegrade.atif.output._judges import JudgesComparison
from tracegrade.atif.output._pairwise import PairwiseComparison
from tracegrade.atif.scoring._records import RunSummary
from tracegrade.atif.scoring._results import EvaluationResults

__all__ = ["json_schemas"]


_MODELS: tuple[tuple[str, type[BaseModel]], ...] = (
    ("evaluation_results", EvaluationResults), ("summary", RunSummary), ("localisation", LocalisationResults),
    ("comparison", AtifComparison), ("judge_comparison", JudgesComparison), ("pairwise_comparison", PairwiseComparison),
)


def json_schemas() -> dict[str, dict[str, Any]]:
    """Schema documents by file name."""
    found = {}
    for name, model in _MODELS:
        schema = model.model_json_schema()
        if model is RunSummary:  # summary.json holds the job id first
            schema["properties"] = {"job_id": {"type": "string", "title": "Job Id"}, **schema["properties"]}
            schema["required"] = ["job_id", *schema.get("required", [])]
        schema["$id"] = f"https://tracegrade.dev/schemas/{name}.schema.json"
        found[f"{name}.schema.json"] = schema
    return found


def main(folder: str) -> None:
    """Write every schema into ``folder``."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    for name, schema in json_schemas().items():
        (target / name).write_bytes(orjson.dumps(schema, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/schemas")
