"""Localise the failure of every selected root tree: the strategy, its repeats and the results document."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from tracegrade import stats
from tracegrade.atif.localising._params import LocaliseOptions, Strategy
from tracegrade.atif.localising._prompts import LOCALISE_PROMPT_VERSION, template_hash
from tracegrade.atif.localising._records import (
    LocalisationResults,
    LocalisationSummary,
    LocaliseStatus,
    LocatedStep,
    RepeatAgreement,
    Share,
    TrajectoryLocalisation,
)
from tracegrade.atif.localising._strategies import STRATEGIES, Question, StrategyOutcome, from_scores
from tracegrade.atif.localising._timeline import Timeline, reference_answer, timeline
from tracegrade.atif.reading._records import LoadResult, TrajectoryNode
from tracegrade.atif.reading._task import resolve_task
from tracegrade.atif.scoring._records import StepResult
from tracegrade.atif.scoring._repeats import repeat_seed
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import ConfigError, JudgeError
from tracegrade.judge import JudgeProtocol

__all__ = ["localise_loaded", "mean_share", "pair_agreement", "select_roots"]

T = TypeVar("T")


async def localise_loaded(loaded: LoadResult, options: LocaliseOptions, judge: JudgeProtocol | None, *, job_id: str,
                          run: EvaluationResults | None = None, source: Mapping[str, Any] | None = None,
                          stop: asyncio.Event | None = None) -> LocalisationResults:
    """Name the decisive agent and step of each selected root of ``loaded``.

    ``run`` (a judge run of the same trajectories) selects the failed roots and is what
    ``from-scores`` reads; ``judge`` may be None only for ``from-scores``. Once ``stop`` is set, the
    roots not finished yet are cancelled: the results hold the finished ones, in their order, and
    count the others as ``summary.interrupted``.

    Raises:
        ConfigError: ``from-scores`` without a run, or another strategy without a judge.
    """
    if options.strategy is Strategy.FROM_SCORES and run is None:
        raise ConfigError("--strategy from-scores: give a judge run folder (it reads that run's step scores)")
    if options.strategy is not Strategy.FROM_SCORES and judge is None:
        raise ConfigError(f"--strategy {options.strategy.value}: needs a judge")
    selected = select_roots(loaded.roots, run, options)
    limit = asyncio.Semaphore(options.concurrency_limit)

    async def one(root: TrajectoryNode, why: str) -> TrajectoryLocalisation:
        async with limit:
            return await localise_root(root, why, options, judge, run)

    rows = await _until_stopped([one(root, why) for root, why in selected], stop)
    finished = [row for row in rows if row is not None]
    summary = _summary(finished, judge, len(loaded.roots) - len(selected))
    return LocalisationResults(job_id=job_id, created_at=datetime.now(UTC).isoformat(timespec="seconds"),
                               source=dict(source or {}), parameters=options, provenance=_provenance(judge),
                               summary=summary.model_copy(update={"interrupted": len(rows) - len(finished)}),
                               trajectories=finished)


async def _until_stopped(work: list[Coroutine[Any, Any, T]], stop: asyncio.Event | None) -> list[T | None]:
    """The results of ``work`` in order; None for each one cancelled because ``stop`` was set first.

    An exception from one of them is raised once it happens, the others cancelled (as ``gather`` does).
    """
    tasks = [asyncio.ensure_future(item) for item in work]
    stopping = asyncio.ensure_future(stop.wait()) if stop is not None else None
    try:
        pending: set[asyncio.Future[Any]] = set(tasks)
        while pending and (stopping is None or not stopping.done()):
            watched = pending | ({stopping} if stopping is not None else set())
            done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            pending -= done
            for task in done:
                if task is not stopping:
                    task.result()  # raises the task's exception
    finally:
        for task in [*tasks, *([stopping] if stopping is not None else [])]:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return [None if task.cancelled() else task.result() for task in tasks]


def select_roots(roots: Sequence[TrajectoryNode], run: EvaluationResults | None,
                 options: LocaliseOptions) -> list[tuple[TrajectoryNode, str]]:
    """The roots to localise, each with the reason it was chosen."""
    verdicts = {node.node_id: node.passed for node in run.nodes} if run is not None else None
    chosen: list[tuple[TrajectoryNode, str]] = []
    for root in roots:
        if verdicts is None:
            chosen.append((root, "every root (no judge run)"))
        elif root.node_id not in verdicts:
            chosen.append((root, "not in the judge run"))
        elif verdicts[root.node_id] is not True:
            verdict = "judge run: not passed" if verdicts[root.node_id] is False else "judge run: no verdict"
            chosen.append((root, verdict))
        elif options.localise_passed:
            chosen.append((root, "judge run: passed (localise_passed)"))
    return chosen[: options.num_examples] if options.num_examples is not None else chosen


async def localise_root(root: TrajectoryNode, why: str, options: LocaliseOptions, judge: JudgeProtocol | None,
                        run: EvaluationResults | None) -> TrajectoryLocalisation:
    """One root tree localised ``judge_repeats`` times; the most frequent answer is kept."""
    line = timeline(root, user_candidates=options.user_candidates)
    reference = reference_answer(root) if options.with_ground_truth else None
    base = TrajectoryLocalisation(
        node_id=root.node_id, trajectory_id=root.trajectory_id, selected=why, status=LocaliseStatus.FAILED,
        strategy=options.strategy, used=options.strategy, steps=len(line.steps), agents=list(line.agents),
        unloaded_nodes=list(line.unloaded), ground_truth=reference is not None,
    )
    if not line.candidates:
        return base.model_copy(update={"error_code": "no_steps", "message": "the tree has no agent step to localise"
                                       if line.steps else "the tree has no step to localise"})
    if options.strategy is Strategy.FROM_SCORES:
        assert run is not None
        finding = from_scores(line, _verdicts(run), run.parameters.failure_threshold)
        return _finished(base, line, [finding], 0)
    assert judge is not None
    questions = [Question(judge, resolve_task(root), reference, options.max_context_bytes,
                          repeat_seed(options.judge_seed, r) if r else None) for r in range(options.judge_repeats)]
    try:
        findings = list(await asyncio.gather(*(STRATEGIES[options.strategy](line, q) for q in questions)))
    except JudgeError as error:
        calls, fallback = sum(q.calls for q in questions), questions[0].fallback
        return base.model_copy(update={"error_code": error.code, "message": error.message, "calls": calls,
                                       "fallback": fallback, "used": Strategy.BINARY_SEARCH if fallback else base.used})
    return _finished(base, line, findings, sum(q.calls for q in questions))


def _finished(base: TrajectoryLocalisation, line: Timeline, findings: list[StrategyOutcome],
              calls: int) -> TrajectoryLocalisation:
    kept = _modal(findings, line)
    located = None
    if kept.step is not None:
        s = kept.step
        located = LocatedStep(ref=s.ref, node_id=s.node_id, index=s.index, step_id=s.step_id, segment=s.segment,
                              position=line.steps.index(s))
    return base.model_copy(update={
        "status": LocaliseStatus.LOCALISED if located else LocaliseStatus.NONE_FOUND,
        "used": kept.used, "fallback": kept.fallback, "step": located, "reason": kept.reason,
        "agent": _modal_agent(findings) if located else None, "calls": calls,
        "left_out": sum(f.left_out for f in findings),
        "repeats": _agreement(findings, kept) if len(findings) > 1 else None,
    })


def _modal(findings: list[StrategyOutcome], line: Timeline) -> StrategyOutcome:
    """The finding whose step was named most often (the earliest step on a tie; no step counts last)."""
    counts = Counter(f.step.ref if f.step else None for f in findings)
    order = {step.ref: place for place, step in enumerate(line.steps)}
    best = max(counts, key=lambda ref: (counts[ref], -order.get(ref, len(order)) if ref else -len(order) - 1))
    return next(f for f in findings if (f.step.ref if f.step else None) == best)


def _modal_agent(findings: list[StrategyOutcome]) -> str | None:
    counts = Counter(f.agent for f in findings if f.agent is not None)
    return max(counts, key=lambda agent: counts[agent]) if counts else None


def _agreement(findings: list[StrategyOutcome], kept: StrategyOutcome) -> RepeatAgreement:
    steps = [f.step.ref if f.step else None for f in findings]
    agents = [f.agent for f in findings]
    kept_ref = kept.step.ref if kept.step else None
    return RepeatAgreement(steps=steps, agents=agents, step_agreement=pair_agreement(steps),
                           agent_agreement=pair_agreement(agents),
                           modal_share=sum(ref == kept_ref for ref in steps) / len(steps))


def pair_agreement(answers: Sequence[object]) -> float:
    """Share of the pairs of ``answers`` (at least two) that are equal."""
    n = len(answers)
    same = sum(count * (count - 1) for count in Counter(answers).values())
    return same / (n * (n - 1))


def mean_share(values: list[float], level: float = 0.95) -> Share:
    interval = stats.bootstrap_mean_ci(values, resamples=2000, level=level, seed=0)
    assert interval.estimate is not None
    return Share(value=interval.estimate, low=interval.low, high=interval.high, n=len(values), level=level)


def _verdicts(run: EvaluationResults) -> dict[tuple[str, int], StepResult]:
    return {(node.node_id, step.index): step for node in run.nodes for step in node.steps}


def _provenance(judge: JudgeProtocol | None) -> dict[str, Any]:
    hashes = {q: template_hash(q) for q in ("localise_all", "localise_step", "localise_half")}
    judged = {"judge": judge.provenance()} if judge is not None else {}
    return {**judged, "prompt_version": LOCALISE_PROMPT_VERSION, "template_hashes": hashes}


def _summary(rows: list[TrajectoryLocalisation], judge: JudgeProtocol | None, not_selected: int) -> LocalisationSummary:
    status = Counter(row.status for row in rows)
    agreements = [row.repeats.step_agreement for row in rows if row.repeats is not None]
    return LocalisationSummary(trajectories=len(rows), localised=status[LocaliseStatus.LOCALISED],
                               none_found=status[LocaliseStatus.NONE_FOUND], failed=status[LocaliseStatus.FAILED],
                               fallbacks=sum(row.fallback is not None for row in rows),
                               calls=sum(row.calls for row in rows),
                               judge=judge.stats.as_dict() if judge is not None else {},
                               repeat_step_agreement=mean_share(agreements) if agreements else None,
                               not_selected=not_selected)
