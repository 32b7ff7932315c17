"""One scoring job end to end: load, resolve criteria, score, assemble (no file output here)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracegrade.atif._assemble import node_results, summarize
from tracegrade.atif._criteria_params import CriteriaParams
from tracegrade.atif._engine import RunProgress, ScoringEngine
from tracegrade.atif._load import load_trajectories
from tracegrade.atif._params import ScoringOptions
from tracegrade.atif._prompts import PROMPT_VERSION, template_hash
from tracegrade.atif._questions import derive_criteria
from tracegrade.atif._records import InputAccount, LoadResult, iter_nodes
from tracegrade.atif._resolver import build_resolver
from tracegrade.atif._results import EvaluationResults, InputRecord
from tracegrade.atif._scores import NodeResult
from tracegrade.judge._judge import Judge
from tracegrade.rubric._models import ScoringMode
from tracegrade.runs._shard import Shard
from tracegrade.runs._status import JobStatus

__all__ = ["run_parameters", "score_loaded", "score_paths"]


async def score_paths(
    paths: Sequence[str | Path],
    options: ScoringOptions,
    criteria: CriteriaParams,
    judge: Judge,
    *,
    job_id: str,
    shard: Shard | None = None,
    progress: RunProgress | None = None,
    on_engine: Callable[[ScoringEngine], None] | None = None,
) -> EvaluationResults:
    """Load ``paths`` and score them; see :func:`score_loaded`."""
    loaded = await asyncio.to_thread(load_trajectories, paths, options.load_options())
    return await score_loaded(
        loaded, options, criteria, judge, job_id=job_id, shard=shard, progress=progress, on_engine=on_engine
    )


async def score_loaded(
    loaded: LoadResult,
    options: ScoringOptions,
    criteria: CriteriaParams,
    judge: Judge,
    *,
    job_id: str,
    shard: Shard | None = None,
    progress: RunProgress | None = None,
    on_engine: Callable[[ScoringEngine], None] | None = None,
) -> EvaluationResults:
    """Score loaded trees: every step through the judge, rolled up, summarised.

    The returned results always describe what finished, also when the job failed (fail_fast) or
    was interrupted (``summary.job_status`` says which).
    """
    roots = loaded.roots if shard is None else shard.select(loaded.roots, key=lambda root: root.node_id)
    if options.num_examples is not None:
        roots = roots[: options.num_examples]
    auto = criteria.scoring_mode is ScoringMode.AUTO
    resolver = build_resolver(
        criteria,
        derive=(lambda task: derive_criteria(judge, task)) if auto else None,
        template_hash=template_hash("derive") if auto else None,
        prompt_version=PROMPT_VERSION,
    )
    engine = ScoringEngine(judge, resolver, options, progress)
    if on_engine is not None:
        on_engine(engine)
    states = await engine.run(roots)
    nodes = node_results(states, options.completion_threshold)
    status = (
        JobStatus.INTERRUPTED if engine.interrupted
        else JobStatus.FAILED if engine.stopped_reason else JobStatus.COMPLETED
    )
    inputs = loaded.inputs if shard is None else _shard_inputs(loaded, shard, nodes)
    summary = summarize(
        nodes,
        inputs,
        options.subagent_aggregation,
        job_status=status,
        failure_reason=engine.stopped_reason,
        judge_counts=judge.stats.as_dict(),
    )
    provenance = {
        "judge": judge.provenance(),
        "prompt_version": PROMPT_VERSION,
        "template_hashes": {p: template_hash(p) for p in ("score", "derive", "categorize")},
        "scored_frames": "all",
        "copied_context": "kept, not scored",
    }
    return EvaluationResults(
        job_id=job_id,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        shard=str(shard) if shard is not None else None,
        parameters=run_parameters(options, criteria, judge, complete=summary.atif_complete),
        provenance=provenance,
        summary=summary,
        inputs=[InputRecord.of(a) for a in inputs],
        nodes=nodes,
    )


def _shard_inputs(loaded: LoadResult, shard: Shard, nodes: Sequence[NodeResult]) -> tuple[InputAccount, ...]:
    """Inputs of one shard: the files of its nodes; inputs tied to no node go to shard 0 only."""
    owned = {n.node_id for n in nodes}
    mine: set[str] = set()
    everywhere: set[str] = set()
    for root in loaded.roots:
        for node in iter_nodes(root):
            files = {node.source_path, *node.segments}
            everywhere |= files
            if node.node_id in owned:
                mine |= files
    return tuple(a for a in loaded.inputs if a.path in mine or (shard.index == 0 and a.path not in everywhere))


def run_parameters(
    options: ScoringOptions, criteria: CriteriaParams, judge: Judge, *, complete: bool
) -> dict[str, Any]:
    """The run's parameters as recorded with the results and logged to MLflow."""
    values: dict[str, Any] = options.model_dump(mode="json")
    values.update(
        {
            "scoring_mode": criteria.scoring_mode.value,
            "benchmark_name": criteria.benchmark_name,
            "reference_registry_path": (
                str(criteria.reference_registry_path) if criteria.reference_registry_path else None
            ),
            "reference_rubric": criteria.reference_rubric,
            "custom_rubric_source": criteria.custom_rubric_source,
            "atif_prompt_version": PROMPT_VERSION,
            "atif_judge": judge.settings.model,
            "atif_scored_frames": "all",
            "atif_complete": complete,
        }
    )
    return values
