"""The JSON shape of the suite report, its replay and their comparison, pinned on the worked example.

The key lists are those of reports written before the records were typed; the digests are of those
reports' bytes (with ``max_concurrency`` renamed), so any change to what is written shows here.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracegrade.suites import (
    RecordedResults,
    SuiteReport,
    SuiteRunParameters,
    compare_reports,
    dumps_report,
    load_dataset,
    replay_report,
    report_summary,
    run_dataset,
)

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "suites"

REPORT_KEYS = {
    "": ["format", "mode", "dataset", "parameters", "target", "started_at", "elapsed_seconds", "suites"],
    "/parameters": ["resamples", "level", "seed", "repeat", "concurrency_limit", "timeout", "details", "variant",
                    "configuration_revision"],
    "/suites/0": ["suite", "revision", "fingerprint", "variant", "configuration_revision", "scorers",
                  "target_workflow", "target_flow", "target_step", "repeat", "metric_specs", "source_case_count",
                  "attempt_count", "checks", "check_pass_rate", "check_coverage", "case_pass_rate", "failure_rate",
                  "review_rate", "statuses", "flows", "steps", "decisions", "latency", "usage", "failures", "metrics",
                  "intervals", "attempts"],
    "/suites/0/metric_specs/0": ["name", "path", "kind", "labels", "each", "expectation"],
    "/suites/0/checks": ["total", "passed", "failed", "missing", "skipped", "errors"],
    "/suites/0/flows/0": ["flow", "observed_invocations", "skipped_invocations", "failed_invocations",
                          "review_invocations"],
    "/suites/0/steps/0": ["flow", "step", "observed_invocations", "skipped_invocations", "failed_invocations",
                          "review_invocations"],
    "/suites/0/decisions/0": ["flow", "step", "decision_invocations", "model_selected_invocations",
                              "fallback_selected_invocations", "fallback_rate"],
    "/suites/0/latency": ["count", "unavailable", "minimum", "median", "p95", "maximum"],
    "/suites/0/usage": ["model_requests", "tool_calls", "output_retries", "input_tokens", "output_tokens",
                        "cache_read_input_tokens", "cache_write_input_tokens", "reasoning_output_tokens"],
    "/suites/0/usage/input_tokens": ["observed", "unknown", "known_total", "total"],
    "/suites/0/metrics/0": ["name", "kind", "path", "labels", "support", "excluded", "observed", "abstained",
                            "missing", "skipped", "errors", "invalid", "correct", "accuracy", "coverage",
                            "confusion_matrix", "per_label", "micro", "macro"],
    "/suites/0/metrics/0/confusion_matrix": ["labels", "rows"],
    "/suites/0/metrics/0/per_label/0": ["label", "tp", "fp", "fn", "tn", "precision", "recall", "f1"],
    "/suites/0/metrics/0/macro": ["precision", "recall", "f1"],
    "/suites/0/intervals": ["check_pass_rate", "case_pass_rate"],
    "/suites/0/intervals/case_pass_rate": ["estimate", "low", "high", "n", "level"],
    "/suites/0/attempts/0": ["id", "repetition", "status", "passed", "checks", "input_sha256", "expectations_sha256",
                             "error_code", "elapsed_seconds", "usage", "invocations", "metrics", "details"],
    "/suites/0/attempts/0/checks/0": ["name", "outcome", "reason_code"],
    "/suites/0/attempts/0/invocations/0": ["flow", "step", "invocation_path", "status", "origin"],
    "/suites/0/attempts/0/metrics/category": ["state", "predicted", "gold", "correct", "fields"],
    "/suites/0/attempts/0/details": ["input", "expectations", "result"],
}
COMPARISON_KEYS = {
    "": ["format", "baseline", "candidate", "comparable", "allowed_differences", "primary", "n", "baseline_score",
         "candidate_score", "mean_delta", "interval", "p_value", "wilcoxon", "min_delta", "improved", "regressed",
         "unchanged", "newly_failing", "newly_passing", "resamples", "seed", "only_in_baseline", "only_in_candidate",
         "gate", "pairs", "dataset", "parameters", "modes", "suites"],
    "/modes": ["candidate", "baseline"],
    "/suites/0": ["suite", "attempt_count", "source_case_count", "changes", "deltas", "latency", "attempts"],
    "/suites/0/changes": ["improved", "regressed", "mixed", "unchanged"],
    "/suites/0/deltas": ["check_pass_rate", "check_coverage", "case_pass_rate", "failure_rate", "review_rate",
                         "metric:category:accuracy", "metric:category:coverage"],
    "/suites/0/deltas/check_pass_rate": ["candidate", "baseline", "delta"],
    "/suites/0/deltas/check_pass_rate/delta": ["estimate", "low", "high", "n", "level"],
    "/suites/0/latency": ["compared", "reason"],
    "/suites/0/attempts/0": ["id", "repetition", "change", "checks_up", "checks_down"],
}
_VARYING = re.compile(rb'^  "(?:started_at|elapsed_seconds)": .*\n|^    "path": ".*results\.jsonl"\n', re.MULTILINE)


def at(document: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document


def digest(data: bytes) -> str:
    """SHA-256 of a report without its start time, duration and results path."""
    return hashlib.sha256(_VARYING.sub(b"", data)).hexdigest()


@pytest.fixture
async def example() -> SuiteReport:
    dataset = load_dataset(EXAMPLE / "dataset.json")
    return await run_dataset(dataset, RecordedResults(EXAMPLE / "results.jsonl", dataset, 1), SuiteRunParameters())


@pytest.mark.parametrize("pointer", REPORT_KEYS)
async def test_the_report_keeps_its_keys_in_order(example: SuiteReport, pointer: str) -> None:
    assert list(at(orjson.loads(dumps_report(example)), pointer)) == REPORT_KEYS[pointer]


async def test_the_report_keeps_its_bytes(example: SuiteReport) -> None:
    assert digest(dumps_report(example)) == "239072676bcb8c25e66e48eced04fe5f8f84cc36cfad633d96e7323226c98110"


async def test_a_replay_says_what_it_replayed_and_keeps_its_bytes(example: SuiteReport) -> None:
    replayed = await replay_report(example, load_dataset(EXAMPLE / "dataset.json"))
    saved = orjson.loads(dumps_report(replayed))
    assert list(saved) == ["format", "mode", "dataset", "parameters", "target", "replayed", "started_at",
                           "elapsed_seconds", "suites"]
    assert saved["replayed"] == {"started_at": example.started_at, "mode": "run"}
    without_replayed = re.sub(rb'  "replayed": \{\n.*?\n  \},\n', b"", dumps_report(replayed), flags=re.DOTALL)
    assert digest(without_replayed.replace(b'"mode": "replay"', b'"mode": "run"')) == digest(dumps_report(example))


@pytest.mark.parametrize("pointer", COMPARISON_KEYS)
async def test_the_comparison_keeps_its_keys_in_order(example: SuiteReport, pointer: str) -> None:
    replayed = await replay_report(example, load_dataset(EXAMPLE / "dataset.json"))
    written = orjson.loads(orjson.dumps(compare_reports(example, replayed).model_dump()))
    assert list(at(written, pointer)) == COMPARISON_KEYS[pointer]


async def test_the_summary_of_the_example(example: SuiteReport) -> None:
    summary = report_summary(example, Path("report.json")).model_dump()
    assert summary["suites"][0] == {
        "suite": "pipeline", "attempt_count": 5, "source_case_count": 5,
        "checks": {"total": 19, "passed": 15, "failed": 2, "missing": 0, "skipped": 1, "errors": 1},
        "check_pass_rate": 15 / 19, "check_coverage": 17 / 19, "case_pass_rate": 0.4, "failure_rate": 0.2,
        "review_rate": 0.2}
    assert (summary["format"], summary["mode"], summary["report"], summary["exit_code"]) == (
        "tracegrade.suite-report/1", "run", "report.json", 4)
