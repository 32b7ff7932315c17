"""JSON Schemas of the files a scoring run and a comparison write.

``python -m tracegrade.atif.output._schemas DIR`` writes them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

from tracegrade.atif.localising._records import LocalisationResults
from tracegrade.atif.output._compare import AtifComparison
from tracegrade.atif.output._judges import JudgesComparison
from tracegrade.atif.output._pairwise import PairwiseComparison
from tracegrade.atif.scoring._records import RunSummary
from tracegrade.atif.scoring._results import EvaluationResults

__all__ = ["json_schemas"]


def json_schemas() -> dict[str, dict[str, Any]]:
    """Schema documents by file name."""
    results = EvaluationResults.model_json_schema()
    results["$id"] = "https://tracegrade.dev/schemas/evaluation_results.schema.json"
    summary = RunSummary.model_json_schema()
    summary["properties"] = {"job_id": {"type": "string", "title": "Job Id"}, **summary["properties"]}
    summary["required"] = ["job_id", *summary.get("required", [])]
    summary["$id"] = "https://tracegrade.dev/schemas/summary.schema.json"
    localisation = LocalisationResults.model_json_schema()
    localisation["$id"] = "https://tracegrade.dev/schemas/localisation.schema.json"
    comparison = AtifComparison.model_json_schema()
    comparison["$id"] = "https://tracegrade.dev/schemas/comparison.schema.json"
    judges = JudgesComparison.model_json_schema()
    judges["$id"] = "https://tracegrade.dev/schemas/judge_comparison.schema.json"
    pairwise = PairwiseComparison.model_json_schema()
    pairwise["$id"] = "https://tracegrade.dev/schemas/pairwise_comparison.schema.json"
    return {"evaluation_results.schema.json": results, "summary.schema.json": summary,
            "localisation.schema.json": localisation, "comparison.schema.json": comparison,
            "judge_comparison.schema.json": judges, "pairwise_comparison.schema.json": pairwise}


def main(folder: str) -> None:
    """Write every schema into ``folder``."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    for name, schema in json_schemas().items():
        (target / name).write_bytes(orjson.dumps(schema, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/schemas")
