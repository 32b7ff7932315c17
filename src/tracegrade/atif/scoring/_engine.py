"""Score every step of a collection of trajectory trees with one shared pool of judge calls.

All steps of all trajectories are independent work items in one queue served by
``concurrency_limit`` workers, so the judge always has that many requests in flight; criteria
resolution and failure categorisation feed the same queue.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tracegrade.atif.asking._content import step_content
from tracegrade.atif.asking._evidence import Evidence, build_evidence
from tracegrade.atif.asking._local_verdict import score_step_locally
from tracegrade.atif.asking._questions import StepJudgement, categorize_step, score_step
from tracegrade.atif.criteria._local import LOCAL_CRITERIA_SOURCE
from tracegrade.atif.criteria._resolver import CriteriaResolver
from tracegrade.atif.criteria._sources import CriteriaFailure, ResolvedCriteria
from tracegrade.atif.reading._models import Step
from tracegrade.atif.reading._records import LogicalStep, NodeStatus, TrajectoryNode
from tracegrade.atif.scoring._params import PartialResultPolicy, ScoringOptions
from tracegrade.atif.scoring._records import CategorizationStatus, StepResult, StepStatus
from tracegrade.atif.scoring._repeat_records import StepRepeats
from tracegrade.atif.scoring._repeats import repeat_seed, step_repeats
from tracegrade.errors import JudgeError
from tracegrade.judge import PROTOCOL_ERROR_CODES, JudgeProtocol

__all__ = ["NodeState", "RunProgress", "ScoringEngine"]


@dataclass
class RunProgress:
    """Live counters a progress display can read while the run goes on."""

    steps_total: int = 0
    steps_done: int = 0
    step_errors: int = 0
    in_flight: int = 0
    categorizations: int = 0


@dataclass
class NodeState:
    """Mutable per-node state while the run is going (turned into a NodeResult at the end)."""

    node: TrajectoryNode
    parent: NodeState | None
    criteria: ResolvedCriteria | CriteriaFailure | None = None
    steps: dict[int, StepResult] = field(default_factory=dict)
    error_code: str | None = None
    message: str | None = None
    error_order: int = 0
    """Step index of the recorded failure (0 for criteria), so the earliest failure wins."""

    @property
    def scorable(self) -> bool:
        """Loaded and within the depth limit."""
        return self.node.status is NodeStatus.LOADED


@dataclass
class _Verdicts:
    """The verdicts of one step's repeats as they arrive (``judge_repeats`` > 1)."""

    count: int
    verdicts: dict[int, StepJudgement] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    evidence: Evidence | None = None

    @property
    def done(self) -> bool:
        return len(self.verdicts) + len(self.errors) == self.count


@dataclass(frozen=True, slots=True)
class _ScoreJob:
    state: NodeState
    step: LogicalStep
    repeat: int = 0
    verdicts: _Verdicts | None = None
    """Shared by the repeats of one step; None for a single verdict."""


@dataclass(frozen=True, slots=True)
class _CategorizeJob:
    state: NodeState
    step: LogicalStep
    evidence: Evidence
    score: float


class ScoringEngine:
    """Runs one collection through the judge; one engine per job."""

    def __init__(
        self,
        judge: JudgeProtocol,
        resolver: CriteriaResolver,
        options: ScoringOptions,
        progress: RunProgress | None = None,
        *,
        coarse: bool = False,
    ) -> None:
        self.judge = judge
        self.coarse = coarse
        """Ask for the local judge's restricted answers (coarse scores, short rationales)."""
        self.resolver = resolver
        self.options = options
        self.progress = progress or RunProgress()
        self.stopped_reason: str | None = None
        self.interrupted = False
        self.states: list[NodeState] = []
        self._interrupted = asyncio.Event()
        self._queue: asyncio.Queue[_ScoreJob | _CategorizeJob] = asyncio.Queue()

    async def run(self, roots: tuple[TrajectoryNode, ...]) -> list[NodeState]:
        """Score every scorable node under ``roots``; returns the states in tree order (parents first)."""
        states = self.states = list(_states(roots))
        self.progress.steps_total = sum(self._to_judge(s) for s in states if s.scorable)
        workers = [asyncio.create_task(self._worker()) for _ in range(self.options.concurrency_limit)]
        main = asyncio.create_task(self._feed_and_drain(states))
        interrupted = asyncio.create_task(self._interrupted.wait())
        try:
            await asyncio.wait({main, interrupted, *workers}, return_when=asyncio.FIRST_COMPLETED)
            for ended in (main, *workers):  # a worker ends only when something escaped it: never wait for it
                if ended.done():
                    ended.result()  # re-raise an unexpected error
        finally:
            for task in (*workers, main, interrupted):
                task.cancel()
            await asyncio.gather(*workers, main, interrupted, return_exceptions=True)
            self._mark_unfinished(states)
        return states

    def interrupt(self) -> None:
        """Stop now: in-flight calls are cancelled, finished results are kept (safe from a signal handler)."""
        self.stopped_reason = self.stopped_reason or "interrupted"
        self.interrupted = True
        self._interrupted.set()

    async def _feed_and_drain(self, states: list[NodeState]) -> None:
        await asyncio.gather(*(self._prepare(s) for s in states if s.scorable))
        await self._queue.join()

    async def _prepare(self, state: NodeState) -> None:
        criteria = await self.resolver.resolve(state.node)
        state.criteria = criteria
        if isinstance(criteria, CriteriaFailure):
            self.progress.steps_total -= self._to_judge(state)
            self._fail(state, criteria.code, criteria.message)
            return
        for logical in state.node.steps:
            if logical.copied and not self.options.score_copied_context:
                state.steps[logical.index] = _step_result(logical, StepStatus.COPIED_CONTEXT)
            elif self.options.judge_repeats == 1:
                self._queue.put_nowait(_ScoreJob(state, logical))
            else:
                verdicts = _Verdicts(self.options.judge_repeats)
                for repeat in range(verdicts.count):
                    self._queue.put_nowait(_ScoreJob(state, logical, repeat, verdicts))

    def _to_judge(self, state: NodeState) -> int:
        """Steps of ``state`` the judge scores (copied context is kept unscored unless asked for)."""
        if self.options.score_copied_context:
            return len(state.node.steps)
        return sum(1 for logical in state.node.steps if not logical.copied)

    async def _worker(self) -> None:
        while True:
            job = await self._queue.get()
            try:
                # A failed node's other steps still run: what is scored and categorised must not
                # depend on which answer arrived first (only a stopped job skips work).
                if self.stopped_reason is None:
                    self.progress.in_flight += 1
                    try:
                        await (self._score(job) if isinstance(job, _ScoreJob) else self._categorize(job))
                    except Exception as error:  # not a judge failure: a defect, which stops the job honestly
                        self._stop_on_defect(job, error)
                    finally:
                        self.progress.in_flight -= 1
            finally:
                self._queue.task_done()

    def _stop_on_defect(self, job: _ScoreJob | _CategorizeJob, error: Exception) -> None:
        """Fail the job on an unexpected error: its step fails, queued work is skipped, nothing waits.

        Only the error's type is kept: its text may quote a URL or a header.
        """
        self.stopped_reason = self.stopped_reason or f"internal error in a judge call ({type(error).__name__})"
        if isinstance(job, _ScoreJob) and job.step.index not in job.state.steps:
            self._step_failed(job.state, job.step, "internal_error")

    async def _score(self, job: _ScoreJob) -> None:
        state, logical = job.state, job.step
        criteria = state.criteria
        assert isinstance(criteria, ResolvedCriteria)
        seed = repeat_seed(self.options.judge_seed, job.repeat) if job.repeat else None
        try:
            evidence = self._evidence(state, logical, criteria)
            if self.coarse and criteria.rubric_source == LOCAL_CRITERIA_SOURCE:  # the local judge's own question
                verdict = await score_step_locally(self.judge, _task(criteria), logical.step, evidence,
                                                   criterion=criteria.rubric.criteria[0].name, seed=seed)
            else:
                verdict = await score_step(self.judge, criteria.rubric, evidence, coarse=self.coarse, seed=seed)
        except JudgeError as error:
            if job.verdicts is None:
                self._step_failed(state, logical, error.code)
                return
            job.verdicts.errors[job.repeat] = error.code
        else:
            if job.verdicts is None:
                self._scored(state, logical, verdict, evidence)
                return
            job.verdicts.verdicts[job.repeat] = verdict
            job.verdicts.evidence = evidence
        if job.verdicts.done:
            self._combine(state, logical, job.verdicts)

    def _step_failed(self, state: NodeState, logical: LogicalStep, code: str) -> None:
        state.steps[logical.index] = _step_result(logical, StepStatus.FAILED, error_code=code)
        self.progress.steps_done += 1
        self.progress.step_errors += 1
        self._fail(state, code, f"step {logical.index}: {code}", order=logical.index)

    def _combine(self, state: NodeState, logical: LogicalStep, verdicts: _Verdicts) -> None:
        """Score a step with the mean of its repeats; any failed repeat fails the step (never a partial mean)."""
        if verdicts.errors:
            self._step_failed(state, logical, verdicts.errors[min(verdicts.errors)])
            return
        ordered = [verdicts.verdicts[r] for r in range(verdicts.count)]
        assert verdicts.evidence is not None
        mean = _mean_judgement(ordered)
        seeds = [repeat_seed(self.options.judge_seed, r) for r in range(verdicts.count)]
        spread = step_repeats([v.score for v in ordered], seeds, self.options.failure_threshold)
        self._scored(state, logical, mean, verdicts.evidence, repeats=spread)

    def _scored(self, state: NodeState, logical: LogicalStep, verdict: StepJudgement, evidence: Evidence,
                *, repeats: StepRepeats | None = None) -> None:
        candidate = verdict.score < self.options.failure_threshold
        state.steps[logical.index] = _step_result(
            logical,
            StepStatus.SCORED,
            score=verdict.score,
            criterion_scores=dict(verdict.scores),
            rationale=verdict.rationale,
            omitted_history=verdict.omitted_history,
            failure_candidate=candidate,
            categorization_status=CategorizationStatus.NOT_RUN if candidate else CategorizationStatus.NOT_NEEDED,
            repeats=repeats,
        )
        self.progress.steps_done += 1
        if candidate:
            self._queue.put_nowait(_CategorizeJob(state, logical, evidence, verdict.score))

    async def _categorize(self, job: _CategorizeJob) -> None:
        current = job.state.steps[job.step.index]
        try:
            answer = await categorize_step(self.judge, job.evidence, job.score, coarse=self.coarse)
        except JudgeError as error:
            invalid = error.code in PROTOCOL_ERROR_CODES
            update = {
                "category": "uncategorized" if invalid else None,
                "categorization_status": (
                    CategorizationStatus.UNCATEGORIZED if invalid else CategorizationStatus.JUDGE_ERROR
                ),
                "categorization_error_code": error.code,
            }
        else:
            update = {
                "category": answer.category,
                "categorization_status": (
                    CategorizationStatus.CATEGORIZED if answer.actionable else CategorizationStatus.ABSTAINED
                ),
                "categorization_rationale": answer.rationale,
            }
        job.state.steps[job.step.index] = current.model_copy(update=update)
        self.progress.categorizations += 1

    def _evidence(self, state: NodeState, logical: LogicalStep, criteria: ResolvedCriteria) -> Evidence:
        node = state.node
        assert node.trajectory is not None
        history = [s.step for s in node.steps[: logical.index - 1]]
        return build_evidence(
            _task(criteria),
            node.trajectory.agent.tool_definitions,
            history,
            logical.step,
            _delegation(state),
            self.options.max_context_bytes,
            reference=criteria.reference_answer,
        )

    def _fail(self, state: NodeState, code: str, message: str, *, order: int = 0) -> None:
        """Record a node failure; the earliest step's failure is kept, whichever finished first."""
        if state.error_code is None or order < state.error_order:
            state.error_code, state.message, state.error_order = code, message, order
        if self.options.partial_result_policy is PartialResultPolicy.FAIL_FAST and self.stopped_reason is None:
            self.stopped_reason = f"fail_fast: node {state.node.node_id} failed ({code})"

    def _mark_unfinished(self, states: list[NodeState]) -> None:
        for state in states:
            for logical in state.node.steps:
                if logical.index not in state.steps:
                    state.steps[logical.index] = _step_result(logical, StepStatus.NOT_RUN)


def _states(roots: tuple[TrajectoryNode, ...]) -> Iterator[NodeState]:
    def walk(node: TrajectoryNode, parent: NodeState | None) -> Iterator[NodeState]:
        state = NodeState(node, parent)
        yield state
        for child in node.children:
            yield from walk(child, state)

    for root in roots:
        yield from walk(root, None)


def _task(criteria: ResolvedCriteria) -> str:
    return criteria.task or "(no task recorded in the trajectory)"


def _delegation(state: NodeState) -> Step | None:
    parent, index = state.parent, state.node.parent_step_index
    if parent is None or index is None or not 1 <= index <= len(parent.node.steps):
        return None
    return parent.node.steps[index - 1].step


def _step_result(logical: LogicalStep, status: StepStatus, **values: Any) -> StepResult:
    return StepResult(
        index=logical.index,
        segment=logical.segment,
        step_id=logical.step_id,
        source=logical.step.source,
        content=step_content(logical.step),
        status=status,
        **values,
    )


def _mean_judgement(verdicts: list[StepJudgement]) -> StepJudgement:
    """One judgement from repeats: mean score and criterion scores; the first verdict's rationale."""
    first = verdicts[0]
    names = first.scores.keys()
    return StepJudgement(
        scores={name: sum(v.scores[name] for v in verdicts) / len(verdicts) for name in names},
        score=sum(v.score for v in verdicts) / len(verdicts),
        rationale=first.rationale,
        omitted_history=first.omitted_history,
        template_hash=first.template_hash,
        prompt_version=first.prompt_version,
    )
