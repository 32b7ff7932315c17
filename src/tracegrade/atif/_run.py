"""One scoring job end to end: load, resolve criteria, score, assemble (no file output here)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tracegrade.atif.asking._prompts import PROMPT_VERSION, template_hash
from tracegrade.atif.asking._questions import derive_criteria
from tracegrade.atif.criteria._local import LOCAL_CRITERIA_SOURCE, LOCAL_GENERIC_RUBRIC
from tracegrade.atif.criteria._params import CriteriaParams
from tracegrade.atif.criteria._resolver import CriteriaResolver, build_resolver
from tracegrade.atif.reading._collection import Collection, read_collection
from tracegrade.atif.reading._records import InputAccount, LoadResult, TrajectoryNode, iter_nodes
from tracegrade.atif.scoring._assemble import node_results, summarize
from tracegrade.atif.scoring._engine import NodeState, RunProgress, ScoringEngine
from tracegrade.atif.scoring._params import PartialResultPolicy, ScoringOptions
from tracegrade.atif.scoring._records import NodeResult
from tracegrade.atif.scoring._results import EvaluationResults, InputRecord, RunParameters
from tracegrade.atif.scoring._spool import NodeSpool
from tracegrade.errors import InputError
from tracegrade.judge import JudgeProtocol
from tracegrade.rubric import Rubric, ScoringMode
from tracegrade.runs import JobStatus, Shard

__all__ = ["JobContext", "copied_context_policy", "criteria_source", "run_parameters", "score_collection",
           "score_loaded", "score_paths"]


@dataclass(frozen=True, slots=True)
class JobContext:
    """How one scoring job runs, besides what it scores and who judges: its id, its part and its observers."""

    job_id: str
    """The job's id in the results."""
    shard: Shard | None = None
    """Score only this shard of the roots (``--shard i/n``)."""
    progress: RunProgress | None = None
    """Live counters for a progress display."""
    on_engine: Callable[[ScoringEngine], None] | None = None
    """Called with the engine before it starts (to let a signal handler interrupt it)."""
    local_judge: bool = False
    """The judge is the tiny embedded one: auto mode uses its fixed generic rubric instead of a derivation, and
    answers are restricted to coarse scores and short rationales (both recorded)."""
    spool_dir: Path | None = None
    """Where finished roots' records are kept until the end (an unnamed temporary file); None: the system's
    temporary folder."""
    on_root: Callable[[int, Sequence[NodeResult]], None] | None = None
    """Called with each finished root's index and records, as they are spooled (in the order roots finish)."""


async def score_paths(paths: Sequence[str | Path], options: ScoringOptions, criteria: CriteriaParams,
                      judge: JudgeProtocol, context: JobContext) -> EvaluationResults:
    """Score ``paths`` as :func:`score_loaded` does, each root's tree read only while it is scored."""
    reading = asyncio.to_thread(read_collection, paths, options.load_options())
    return await score_collection(await reading, options, criteria, judge, context)  # the outline is not kept here


async def score_loaded(loaded: LoadResult, options: ScoringOptions, criteria: CriteriaParams, judge: JudgeProtocol,
                       context: JobContext) -> EvaluationResults:
    """Score loaded trees: every step through the judge, rolled up, summarised.

    The returned results always describe what finished, also when the job failed (fail_fast) or
    was interrupted (``summary.job_status`` says which).
    """
    return await score_collection(Collection.of(loaded), options, criteria, judge, context)


async def score_collection(collection: Collection, options: ScoringOptions, criteria: CriteriaParams,
                           judge: JudgeProtocol, context: JobContext) -> EvaluationResults:
    """Score a collection root by root (see :func:`score_loaded`), spooling each root's records as it finishes."""
    shard, local_judge, loaded = context.shard, context.local_judge, collection.outline
    roots = loaded.roots if shard is None else shard.select(loaded.roots, key=lambda root: root.node_id)
    if options.num_examples is not None:
        roots = roots[: options.num_examples]
    _refuse_roots_without_task(collection, roots, options, criteria)
    resolver = _resolver(criteria, judge, options.max_context_bytes, local_judge=local_judge)
    engine = ScoringEngine(judge, resolver, options, context.progress, coarse=local_judge)
    engine.progress.steps_total = sum(collection.steps(root) for root in roots)
    if context.on_engine is not None:
        context.on_engine(engine)
    spool = NodeSpool(context.spool_dir)

    def finish(index: int, states: list[NodeState]) -> None:
        records = node_results(states, options.completion_threshold)
        spool.add(index, records)
        if context.on_root is not None:
            context.on_root(index, records)

    await engine.run(_in_thread(collection.trees(roots)), finish)
    spooled = spool.nodes()
    nodes = spooled.brief
    status = (
        JobStatus.INTERRUPTED if engine.interrupted
        else JobStatus.FAILED if engine.stopped_reason else JobStatus.COMPLETED
    )
    inputs = loaded.inputs if shard is None else _shard_inputs(loaded, shard, nodes)
    del collection, loaded, roots  # the outline's trees: freed before the records are made, when the caller let go
    summary = summarize(nodes, inputs, options.subagent_aggregation, job_status=status,
                        failure_reason=engine.stopped_reason, judge_counts=judge.stats.as_dict(),
                        shard=shard is not None, repeats=options.judge_repeats)
    provenance = {
        "judge": judge.provenance(),
        "prompt_version": PROMPT_VERSION,
        "template_hashes": {p: template_hash(p) for p in ("score", "derive", "categorize")},
        "scored_frames": options.scored_frames.value,
        "copied_context": copied_context_policy(options),
    }
    return EvaluationResults(
        job_id=context.job_id,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        shard=str(shard) if shard is not None else None,
        parameters=run_parameters(
            options, criteria, judge, complete=summary.atif_complete,
            criteria_source=criteria_source(criteria, local_judge),
        ),
        provenance=provenance,
        summary=summary,
        inputs=[InputRecord.of(a) for a in inputs],
        nodes=spooled,  # kept as they are (not validated again): read back when walked
    )


def _refuse_roots_without_task(collection: Collection, roots: Sequence[TrajectoryNode], options: ScoringOptions,
                               criteria: CriteriaParams) -> None:
    """Under fail_fast in auto mode, stop before the first judge call when any root has no task to derive from.

    Raises:
        InputError: ``task_unresolved``, naming every root without a task.
    """
    fail_fast = options.partial_result_policy is PartialResultPolicy.FAIL_FAST
    if criteria.scoring_mode is not ScoringMode.AUTO or not fail_fast:
        return
    missing = collection.without_task(roots)
    if missing:
        names = ", ".join(root.node_id for root in missing)
        raise InputError(
            f"{len(missing)} of {len(roots)} trajectories have no task, so auto mode cannot derive their criteria "
            f"(no judge call was made): {names}. Give each an extra.task_instruction or a user step with text, "
            "choose --scoring-mode benchmark or custom, or --partial-result-policy skip_failed_trajectory to score "
            "the others", code="task_unresolved")


async def _in_thread(items: Iterator[TrajectoryNode]) -> AsyncIterator[TrajectoryNode]:
    """The items of a blocking iterator, each taken in a worker thread so the event loop keeps serving calls."""
    while (item := await asyncio.to_thread(next, items, None)) is not None:
        yield item


def _resolver(criteria: CriteriaParams, judge: JudgeProtocol, budget: int, *, local_judge: bool) -> CriteriaResolver:
    """The job's resolver; derivations use the same request budget as scoring."""
    if criteria.scoring_mode is not ScoringMode.AUTO:
        return build_resolver(criteria, prompt_version=PROMPT_VERSION)
    if local_judge:

        async def generic(task: str) -> Rubric:
            return LOCAL_GENERIC_RUBRIC

        fixed = f"fixed:{LOCAL_GENERIC_RUBRIC.criteria_hash}"
        return build_resolver(
            criteria, derive=generic, template_hash=fixed, prompt_version=PROMPT_VERSION,
            auto_source=LOCAL_CRITERIA_SOURCE,
        )
    return build_resolver(criteria, derive=lambda task: derive_criteria(judge, task, budget),
                          template_hash=template_hash("derive"), prompt_version=PROMPT_VERSION)


def criteria_source(criteria: CriteriaParams, local_judge: bool) -> str:
    """Where the job's criteria came from, as recorded in ``atif_criteria_source``."""
    if criteria.scoring_mode is ScoringMode.AUTO:
        return LOCAL_CRITERIA_SOURCE if local_judge else "derived_by_judge"
    return criteria.scoring_mode.value


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


def copied_context_policy(options: ScoringOptions) -> str:
    """How steps marked ``is_copied_context`` were treated: ``scored``, or ``kept_not_scored``."""
    return "scored" if options.score_copied_context else "kept_not_scored"


def run_parameters(options: ScoringOptions, criteria: CriteriaParams, judge: JudgeProtocol, *, complete: bool,
                   criteria_source: str) -> RunParameters:
    """The run's parameters as recorded with the results and logged to MLflow."""
    return RunParameters(
        **dict(options),
        scoring_mode=criteria.scoring_mode,
        benchmark_name=criteria.benchmark_name,
        reference_registry_path=str(criteria.reference_registry_path) if criteria.reference_registry_path else None,
        reference_rubric=criteria.reference_rubric,
        custom_rubric_source=criteria.custom_rubric_source,
        atif_prompt_version=PROMPT_VERSION,
        atif_judge=judge.settings.model,
        atif_scored_frames=options.scored_frames.value,
        atif_criteria_source=criteria_source,
        atif_copied_context=copied_context_policy(options),
        atif_complete=complete,
    )
