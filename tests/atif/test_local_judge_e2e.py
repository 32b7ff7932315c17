"""The Harbor trials scored end to end by the real local judge (llama.cpp + Gemma 3 270M)."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest

from tracegrade.atif._job import JudgeTarget, run_atif_job
from tracegrade.atif import EvaluationResults, NodeStatusCode, StepStatus, parse_parameters

pytestmark = [pytest.mark.slow, pytest.mark.local_judge]

TRIALS = ("rfc0001-example", "terminus2-context-summarization-linear-history")


def test_harbor_trials_with_the_local_judge(shared_corpus: Path, tmp_path: Path) -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is not installed (pip install 'tracegrade[local-judge]')")
    paths = [shared_corpus / "atif/harbor/trials" / name for name in TRIALS]
    options, criteria = parse_parameters(
        {
            "scoring_mode": "benchmark",
            "benchmark_name": "terminal-bench",
            "partial_result_policy": "skip_failed_trajectory",
        }
    )

    async def main() -> tuple[EvaluationResults, dict[str, Path]]:
        return await run_atif_job(
            paths,
            options,
            criteria,
            JudgeTarget(local=True),
            job_id="local-e2e",
            out_dir=tmp_path / "run",
            cache_path=None,
        )

    results, artifacts = asyncio.run(main())
    steps = [s for n in results.nodes if n.status is not NodeStatusCode.INVALID for s in n.steps]
    assert len([n for n in results.nodes if n.depth == 0]) == 2
    # every step ends scored or with an explicit error code; copied context is kept but not judged
    for step in steps:
        assert step.status in (StepStatus.SCORED, StepStatus.FAILED, StepStatus.COPIED_CONTEXT)
        if step.status is StepStatus.SCORED:
            assert step.score is not None and 0.0 <= step.score <= 1.0
        if step.status is StepStatus.FAILED:
            assert step.error_code and step.score is None
    assert "gemma" in results.parameters["atif_judge"]
    assert results.summary.atif_complete is False  # the linear-history trial has unresolvable refs
    assert all(p.exists() for p in artifacts.values())
