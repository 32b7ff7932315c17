"""End to end with the real local judge (llama.cpp + Gemma 3 270M): Harbor trials and the bundled examples."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest

from tests.conftest import EXAMPLES, require_local_judge
from tracegrade.atif import EvaluationResults, parse_parameters, read_results
from tracegrade.atif._job import JudgeTarget, run_atif_job
from tracegrade.atif._run import JobContext
from tracegrade.atif.scoring import StepStatus
from tracegrade.atif.scoring._records import NodeStatusCode
from tracegrade.judge._judge import PROTOCOL_ERROR_CODES
from tracegrade.runs import JobStatus

pytestmark = [pytest.mark.slow, pytest.mark.local_judge]

TRIALS = ("rfc0001-example", "terminus2-context-summarization-linear-history")


def score_locally(paths: list[Path], out: Path, **parameters: object) -> EvaluationResults:
    require_local_judge()
    options, criteria = parse_parameters({"partial_result_policy": "skip_failed_trajectory", **parameters})

    async def main() -> EvaluationResults:
        results, artifacts = await run_atif_job(
            paths, options, criteria, JudgeTarget(local=True), JobContext("local-e2e"), out_dir=out, cache_path=None
        )
        assert all(p.exists() for p in artifacts.values())
        return results

    return asyncio.run(main())


def test_harbor_trials_with_the_local_judge(shared_corpus: Path, tmp_path: Path) -> None:
    paths = [shared_corpus / "atif/harbor/trials" / name for name in TRIALS]
    results = score_locally(paths, tmp_path / "run", scoring_mode="benchmark", benchmark_name="terminal-bench")
    assert results.summary.job_status is JobStatus.COMPLETED
    assert len([n for n in results.nodes if n.depth == 0]) == 2
    steps = [s for n in results.nodes if n.status is not NodeStatusCode.INVALID for s in n.steps]
    scored = [s for s in steps if s.status is StepStatus.SCORED]
    assert len(scored) >= len(steps) // 2  # the judge really scored, it did not just fail
    assert all(s.score is not None and 0.0 <= s.score <= 1.0 for s in scored)
    failed = [s for s in steps if s.status is StepStatus.FAILED]
    assert not [s.error_code for s in failed if s.error_code in PROTOCOL_ERROR_CODES]  # the grammar holds
    assert "gemma" in results.parameters.atif_judge
    assert results.summary.atif_complete is False  # the linear-history trial has unresolvable refs


def labelled_steps() -> dict[tuple[str, int], str]:
    """``(file name, step_id)`` to ``good``/``bad``, as labelled in the examples' ``extra.example_quality``."""
    labels = {}
    for path in sorted((EXAMPLES / "atif").rglob("*.json")):
        document = orjson.loads(path.read_bytes())
        for trajectory in (document, *document.get("subagent_trajectories", [])):
            for step in trajectory["steps"]:
                quality = (step.get("extra") or {}).get("example_quality")
                if quality:
                    labels[(trajectory.get("trajectory_id") or path.name, step["step_id"])] = quality
    return labels


@pytest.fixture(scope="module")
def examples_run(local_examples_run: Path) -> EvaluationResults:
    """The quick start: the bundled examples scored by the local judge (the session's one run, from the CLI)."""
    return read_results(local_examples_run)


def quality_means(results: EvaluationResults) -> tuple[dict[str, list[float]], float, float]:
    labels = labelled_steps()
    scores: dict[str, list[float]] = {"good": [], "bad": []}
    for node in results.nodes:
        for step in node.steps:
            name = "trajectory.cont-1.json" if step.segment else node.trajectory_id or Path(node.source_path).name
            quality = labels.get((name, step.step_id))
            if quality and step.score is not None:
                scores[quality].append(step.score)
    good, bad = (sum(v) / len(v) for v in (scores["good"], scores["bad"]))
    return scores, good, bad


def test_the_local_judge_gives_valid_answers_on_the_examples(examples_run: EvaluationResults) -> None:
    assert examples_run.summary.job_status is JobStatus.COMPLETED
    assert examples_run.summary.counts.get("steps_failed", 0) == 0
    assert examples_run.parameters.atif_criteria_source == "local_judge_generic_rubric"
    scores, _, _ = quality_means(examples_run)
    assert len(scores["good"]) == 9 and len(scores["bad"]) == 4  # every labelled step was scored
    for node in examples_run.nodes:
        assert node.criteria is not None and "token probabilities" in node.criteria["criteria"][0]["description"]
        for step in node.steps:
            if step.status is StepStatus.SCORED:  # each score is a probability read from the judge's answer
                assert (step.rationale or "").startswith("local judge: problem ")


def test_the_cli_run_keeps_the_local_judges_request_budget(examples_run: EvaluationResults) -> None:
    from tracegrade.judge import LOCAL_MAX_CONTEXT_BYTES

    assert examples_run.parameters.max_context_bytes == LOCAL_MAX_CONTEXT_BYTES  # before: 65,536 from the CLI


def test_the_local_judge_ranks_the_bad_example_steps_lower(examples_run: EvaluationResults) -> None:
    scores, good, bad = quality_means(examples_run)
    print(f"local judge on the examples: good steps {good:.3f} {scores['good']}, bad steps {bad:.3f} {scores['bad']}")
    assert bad < good
