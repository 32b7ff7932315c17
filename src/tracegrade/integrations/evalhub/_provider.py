"""The EvalHub provider definition (``providers/atif.yaml``) for this installation."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from typing import Any

import yaml

__all__ = [
    "BENCHMARK_ID",
    "DEFAULT_IMAGE",
    "ENTRY_MODULE",
    "PARAMETERS",
    "PROVIDER_ID",
    "provider_config",
    "provider_yaml",
]

PROVIDER_ID = "atif"
BENCHMARK_ID = "atif_trajectory_default"
ENTRY_MODULE = "tracegrade.integrations.evalhub"
DEFAULT_IMAGE = "quay.io/your-org/tracegrade:0.1.0"
"""Placeholder image reference for the Kubernetes runtime (build it from the repository's Containerfile)."""

PARAMETERS: tuple[tuple[str, str, str], ...] = (
    (
        "trajectory_path",
        "string",
        "ATIF file or folder to score (folders are read recursively). Default /test_data/trajectory.json.",
    ),
    (
        "scoring_mode",
        "string",
        "Where the criteria come from: auto (derived from each task), benchmark, reference or custom. Default auto.",
    ),
    (
        "benchmark_name",
        "string",
        "Built-in benchmark rubric for scoring_mode=benchmark (swebench-verified, terminal-bench, humanevalfix).",
    ),
    ("reference_registry_path", "string", "JSON registry of reference rubrics for scoring_mode=reference."),
    ("reference_rubric", "string", "Rubric picked from the reference registry. Default: default."),
    (
        "provider_params",
        "object",
        "Provider options; provider_params.rubric holds a custom rubric "
        "(object, or YAML/JSON text) for scoring_mode=custom.",
    ),
    ("custom_rubric", "object", "Older spelling of provider_params.rubric."),
    ("custom_rubric_path", "string", "Custom rubric file (YAML or JSON) for scoring_mode=custom."),
    (
        "completion_threshold",
        "float",
        "A trajectory passes when complete and its aggregate is at least this. Default 0.5.",
    ),
    ("failure_threshold", "float", "Steps scoring below this are sent for failure categorisation. Default 0.5."),
    (
        "subagent_aggregation",
        "string",
        "How subagents count in atif_overall_score: flat, hierarchical or separate. Default flat.",
    ),
    (
        "partial_result_policy",
        "string",
        "fail_fast stops at the first failed trajectory; skip_failed_trajectory keeps going. Default fail_fast.",
    ),
    ("max_subagent_depth", "integer", "Deeper subagents are kept but left unscored. Default 3."),
    ("max_total_steps", "integer", "Most steps in the whole input. Default 10000."),
    ("max_file_bytes", "integer", "Largest trajectory file read. Default 10485760."),
    ("max_trajectory_files", "integer", "Most trajectory files read. Default 10000."),
    ("max_steps_per_trajectory", "integer", "Most steps in one trajectory. Default 500."),
    (
        "tolerant_inputs",
        "boolean",
        "Record unreadable files and go on (atif_complete is then false) instead of failing the job. Default false.",
    ),
    ("num_examples", "integer", "Score only the first N root trajectories (sorted by path)."),
    ("concurrency_limit", "integer", "Judge requests in flight at once. Default 10."),
    ("judge_timeout_seconds", "float", "Deadline of one judge HTTP attempt. Default 30."),
    ("judge_max_attempts", "integer", "Attempts per judge call, retries included (1-10). Default 3."),
    ("judge_initial_backoff_seconds", "float", "First retry delay; it doubles on each retry. Default 0.5."),
    ("max_judge_requests", "integer", "Budget of judge HTTP attempts for the whole job (unlimited if unset)."),
    ("max_context_bytes", "integer", "Byte budget of one judge request. Default 65536."),
    ("judge_temperature", "float", "Judge sampling temperature. Default 0."),
    ("judge_max_tokens", "integer", "Judge answer token limit. Default 1024."),
    ("judge_seed", "integer", "Judge sampling seed, when the endpoint supports one."),
)
"""Every job parameter: name, type and what it does."""


def provider_config(
    *,
    command: str | None = None,
    image: str = DEFAULT_IMAGE,
    env: Mapping[str, str] | None = None,
    provider_id: str = PROVIDER_ID,
) -> dict[str, Any]:
    """The provider definition as data.

    Args:
        command: Local-mode command (default: this interpreter running the adapter module).
        image: Container image for the Kubernetes runtime.
        env: Extra environment for local-mode runs.
        provider_id: Provider id (EvalHub also wants provider names to be unique, so another id gets
            another name).
    """
    local: dict[str, Any] = {"command": command or f"{shlex.quote(sys.executable)} -m {ENTRY_MODULE}"}
    if env:
        local["env"] = [{"name": name, "value": value} for name, value in env.items()]
    return {
        "id": provider_id,
        "name": "ATIF trajectory judge (tracegrade)" if provider_id == PROVIDER_ID else f"ATIF judge {provider_id}",
        "description": "Scores every step of ATIF agent trajectories with an LLM judge (the job's model), rolls "
        "the scores up subagent trees and categorises low-scoring steps.",
        "type": "community",
        "runtime": {
            "k8s": {
                "image": image,
                "entrypoint": ["python", "-m", ENTRY_MODULE],
                "cpu_request": "250m",
                "memory_request": "512Mi",
                "cpu_limit": "2000m",
                "memory_limit": "2Gi",
            },
            "local": local,
        },
        "benchmarks": [_benchmark()],
        "parameters": [{"name": n, "type": t, "description": d} for n, t, d in PARAMETERS],
    }


def provider_yaml(**kwargs: Any) -> str:
    """The provider definition as YAML text (arguments as for :func:`provider_config`)."""
    header = "# EvalHub provider for tracegrade's ATIF adapter (generated by `tracegrade evalhub provider-yaml`).\n"
    return header + yaml.safe_dump(provider_config(**kwargs), sort_keys=False, allow_unicode=True, width=100)


def _benchmark() -> dict[str, Any]:
    return {
        "id": BENCHMARK_ID,
        "name": "ATIF trajectory judge",
        "description": "Step-level LLM-judge scores of pre-recorded ATIF trajectories; atif_overall_score is the "
        "collection score under subagent_aggregation.",
        "category": "agentic",
        "metrics": [
            "atif_overall_score",
            "atif_trajectory_count",
            "atif_failure_categorization_rate",
            "overall_score",
            "num_examples_evaluated",
        ],
        "primary_score": {"metric": "atif_overall_score", "lower_is_better": False},
        "pass_criteria": {"threshold": 0.5},
        "tags": ["atif", "trajectory", "llm-judge", "agentic"],
    }
