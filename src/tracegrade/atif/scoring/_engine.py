"""Score every step of a collection of trajectory trees with one shared pool of judge calls.

Every step of every trajectory, each criteria resolution and categorisation, is a work item in one queue
served by ``concurrency_limit`` workers; roots are taken in turn while the pool has room and let go of once
their last call ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tracegrade.atif.asking._content import step_content
from tracegrade.atif.asking._evidence import Evidence, Frames, build_evidence
from tracegrade.atif.asking._local_verdict import score_step_locally
from tracegrade.atif.asking._questions import StepJudgement, categorize_step, score_step
from tracegrade.atif.criteria._local import LOCAL_CRITERIA_SOURCE
from tracegrade.atif.criteria._resolver import CriteriaResolver
from tracegrade.atif.criteria._sources import CriteriaFailure, ResolvedCriteria
from tracegrade.atif.reading._models import Step
from tracegrade.atif.reading._records import LogicalStep, NodeStatus, TrajectoryNode
from tracegrade.atif.scoring._params import PartialResultPolicy, ScoredFrames, ScoringOptions
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
    frames: Frames = field(default_factory=dict)
    """The judge's view of each step already shown as history, by ``id`` (the node holds the steps)."""

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


@dataclass(slots=True)
class _Root:
    """One root tree in flight: its states, and the work not finished yet."""

    index: int
    states: list[NodeState]
    pending: int = 1
    """Its preparation, then each queued or running job."""


@dataclass(frozen=True, slots=True)
class _ScoreJob:
    state: NodeState
    step: LogicalStep
    root: _Root
    repeat: int = 0
    verdicts: _Verdicts | None = None
    """Shared by the repeats of one step; None for a single verdict."""


@dataclass(frozen=True, slots=True)
class _CategorizeJob:
    state: NodeState
    step: LogicalStep
    root: _Root
    evidence: Evidence
    score: float


class ScoringEngine:
    """Runs one collection through the judge; one engine per job."""

    def __init__(self, judge: JudgeProtocol, resolver: CriteriaResolver, options: ScoringOptions,
                 progress: RunProgress | None = None, *, coarse: bool = False) -> None:
        self.judge = judge
        self.coarse = coarse
        """Ask for the local judge's restricted answers (coarse scores, short rationales)."""
        self.resolver = resolver
        self.options = options
        self.progress = progress or RunProgress()
        self.stopped_reason: str | None = None
        self.interrupted = False
        self._interrupted = asyncio.Event()
        self._queue: asyncio.Queue[_ScoreJob | _CategorizeJob] = asyncio.Queue()
        self._open: dict[int, _Root] = {}
        self._outstanding = 0
        """Jobs queued or running."""
        self._preparing: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        """Set when a job or a root finishes, or the job stops: the feeder looks again."""
        self._crash: BaseException | None = None
        self._finish: Callable[[int, list[NodeState]], None] = lambda index, states: None

    async def run(self, roots: AsyncIterable[TrajectoryNode], finish: Callable[[int, list[NodeState]], None]) -> None:
        """Score every scorable node of ``roots``, taking them in turn while the pool has room.

        ``finish(i, states)`` receives the states of the ``i``-th root's tree (parents first) once its
        last call has ended, in the order roots finish; the engine keeps nothing of a finished root.
        After fail_fast stopped the job, the remaining roots still get their criteria, but no step is judged;
        after an interrupt they are finished at once, without criteria.
        """
        self._finish = finish
        workers = [asyncio.create_task(self._worker()) for _ in range(self.options.concurrency_limit)]
        feed = asyncio.create_task(self._feed(roots))
        interrupted = asyncio.create_task(self._interrupted.wait())
        try:
            await asyncio.wait({feed, interrupted, *workers}, return_when=asyncio.FIRST_COMPLETED)
            for ended in workers:  # a worker ends only when something escaped it: never wait for it
                if ended.done():
                    ended.result()  # re-raise an unexpected error
            if not feed.done():  # interrupted: in-flight calls are cancelled, the rest is read as not run
                await self._cancel([*workers, *self._preparing])
                for index in sorted(self._open):
                    self._close(self._open[index])
            await feed  # re-raise an unexpected error
        finally:
            await self._cancel([*workers, *self._preparing, feed, interrupted])

    def interrupt(self) -> None:
        """Stop now: in-flight calls are cancelled, finished results are kept (safe from a signal handler)."""
        self.stopped_reason = self.stopped_reason or "interrupted"
        self.interrupted = True
        self._interrupted.set()
        self._wake.set()

    async def _feed(self, roots: AsyncIterable[TrajectoryNode]) -> None:
        index = 0
        async for tree in roots:
            await self._until(self._has_room)
            self._admit(index, tree)
            index += 1
        await self._until(lambda: not self._open)

    def _has_room(self) -> bool:
        room = 2 * self.options.concurrency_limit
        return self.interrupted or (self._outstanding < room and len(self._open) < room)

    async def _until(self, ready: Callable[[], bool]) -> None:
        while not ready():
            if self._crash is not None:
                raise self._crash
            self._wake.clear()
            await self._wake.wait()
        if self._crash is not None:
            raise self._crash

    def _admit(self, index: int, tree: TrajectoryNode) -> None:
        root = _Root(index, list(_states(tree)))
        # the caller counted every step; copied context is kept unscored unless asked for
        self.progress.steps_total -= sum(len(s.node.steps) - self._to_judge(s) for s in root.states if s.scorable)
        if self.interrupted:
            self._close(root)
            return
        self._open[index] = root
        task = asyncio.create_task(self._prepare_root(root))
        self._preparing.add(task)
        task.add_done_callback(self._prepared)

    def _prepared(self, task: asyncio.Task[None]) -> None:
        self._preparing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self._crash = self._crash or task.exception()
            self._wake.set()

    async def _prepare_root(self, root: _Root) -> None:
        try:
            await asyncio.gather(*(self._prepare(s, root) for s in root.states if s.scorable))
        finally:
            self._release(root)

    async def _prepare(self, state: NodeState, root: _Root) -> None:
        criteria = await self.resolver.resolve(state.node)
        state.criteria = criteria
        if isinstance(criteria, CriteriaFailure):
            self.progress.steps_total -= self._to_judge(state)
            self._fail(state, criteria.code, criteria.message)
            return
        for logical in state.node.steps:
            if logical.copied and not self.options.score_copied_context:
                state.steps[logical.index] = _step_result(logical, StepStatus.COPIED_CONTEXT)
            elif not self._scores_frame(logical):
                state.steps[logical.index] = _step_result(logical, StepStatus.EVIDENCE_ONLY)
            elif self.options.judge_repeats == 1:
                self._put(_ScoreJob(state, logical, root))
            else:
                verdicts = _Verdicts(self.options.judge_repeats)
                for repeat in range(verdicts.count):
                    self._put(_ScoreJob(state, logical, root, repeat, verdicts))

    def _put(self, job: _ScoreJob | _CategorizeJob) -> None:
        job.root.pending += 1
        self._outstanding += 1
        self._queue.put_nowait(job)

    def _done(self, job: _ScoreJob | _CategorizeJob) -> None:
        """A job ended (run, skipped or cancelled)."""
        self._queue.task_done()
        self._outstanding -= 1
        self._release(job.root)

    def _release(self, root: _Root) -> None:
        root.pending -= 1
        if root.pending == 0 and root.index in self._open:
            self._close(root)
        else:
            self._wake.set()

    def _close(self, root: _Root) -> None:
        """Hand a root back: its unfinished steps are marked not run."""
        self._open.pop(root.index, None)
        self._mark_unfinished(root.states)
        self._finish(root.index, root.states)
        self._wake.set()

    @staticmethod
    async def _cancel(tasks: list[asyncio.Task[Any]]) -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _to_judge(self, state: NodeState) -> int:
        """Steps of ``state`` the judge scores (not copied context unless asked for; agent steps only if asked)."""
        if self.options.score_copied_context and self.options.scored_frames is ScoredFrames.ALL:
            return len(state.node.steps)
        return sum(1 for logical in state.node.steps
                   if (self.options.score_copied_context or not logical.copied) and self._scores_frame(logical))

    def _scores_frame(self, logical: LogicalStep) -> bool:
        """Whether the frame's source is scored (every source, or agent steps only)."""
        return self.options.scored_frames is ScoredFrames.ALL or logical.step.source == "agent"

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
                self._done(job)

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
                self._scored(job, verdict, evidence)
                return
            job.verdicts.verdicts[job.repeat] = verdict
            job.verdicts.evidence = evidence
        if job.verdicts.done:
            self._combine(job, job.verdicts)

    def _step_failed(self, state: NodeState, logical: LogicalStep, code: str) -> None:
        state.steps[logical.index] = _step_result(logical, StepStatus.FAILED, state.frames, error_code=code)
        self.progress.steps_done += 1
        self.progress.step_errors += 1
        self._fail(state, code, f"step {logical.index}: {code}", order=logical.index)

    def _combine(self, job: _ScoreJob, verdicts: _Verdicts) -> None:
        """Score a step with the mean of its repeats; any failed repeat fails the step (never a partial mean)."""
        if verdicts.errors:
            self._step_failed(job.state, job.step, verdicts.errors[min(verdicts.errors)])
            return
        ordered = [verdicts.verdicts[r] for r in range(verdicts.count)]
        assert verdicts.evidence is not None
        mean = _mean_judgement(ordered)
        seeds = [repeat_seed(self.options.judge_seed, r) for r in range(verdicts.count)]
        spread = step_repeats([v.score for v in ordered], seeds, self.options.failure_threshold)
        self._scored(job, mean, verdicts.evidence, repeats=spread)

    def _scored(self, job: _ScoreJob, verdict: StepJudgement, evidence: Evidence,
                *, repeats: StepRepeats | None = None) -> None:
        state, logical = job.state, job.step
        candidate = verdict.score < self.options.failure_threshold
        state.steps[logical.index] = _step_result(
            logical,
            StepStatus.SCORED,
            state.frames,
            score=verdict.score,
            criterion_scores=dict(verdict.scores),
            rationale=verdict.rationale,
            omitted_history=verdict.omitted_history,
            failure_candidate=candidate,
            categorization_status=CategorizationStatus.NOT_RUN if candidate else CategorizationStatus.NOT_NEEDED,
            repeats=repeats,
            panel=None if verdict.panel is None else verdict.panel.judged(self.options.failure_threshold),
        )
        self.progress.steps_done += 1
        if candidate:
            self._put(_CategorizeJob(state, logical, job.root, evidence, verdict.score))

    async def _categorize(self, job: _CategorizeJob) -> None:
        current = job.state.steps[job.step.index]
        try:
            criteria = job.state.criteria
            rubric = criteria.rubric if isinstance(criteria, ResolvedCriteria) else None
            answer = await categorize_step(self.judge, job.evidence, job.score, coarse=self.coarse, rubric=rubric)
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
        return build_evidence(_task(criteria), node.trajectory.agent.tool_definitions, history, logical.step,
                              _delegation(state), self.options.max_context_bytes, reference=criteria.reference_answer,
                              frames=state.frames)

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


def _states(node: TrajectoryNode, parent: NodeState | None = None) -> Iterator[NodeState]:
    """The states of a tree, parents first."""
    state = NodeState(node, parent)
    yield state
    for child in node.children:
        yield from _states(child, state)


def _task(criteria: ResolvedCriteria) -> str:
    return criteria.task or "(no task recorded in the trajectory)"


def _delegation(state: NodeState) -> Step | None:
    parent, index = state.parent, state.node.parent_step_index
    if parent is None or index is None or not 1 <= index <= len(parent.node.steps):
        return None
    return parent.node.steps[index - 1].step


def _step_result(logical: LogicalStep, status: StepStatus, frames: Frames | None = None,
                 **values: Any) -> StepResult:
    """The result of a step; ``frames`` are its node's projected steps (its own is reused when there)."""
    frame = frames.get(id(logical.step)) if frames is not None else None
    return StepResult(index=logical.index, segment=logical.segment, step_id=logical.step_id, source=logical.step.source,
                      content=step_content(logical.step, frame[0] if frame is not None else None), status=status,
                      **values)


def _mean_judgement(verdicts: list[StepJudgement]) -> StepJudgement:
    """One judgement from repeats: mean score and criterion scores; the first verdict's rationale."""
    first = verdicts[0]
    names = first.scores.keys()
    return StepJudgement(scores={name: sum(v.scores[name] for v in verdicts) / len(verdicts) for name in names},
                         score=sum(v.score for v in verdicts) / len(verdicts), rationale=first.rationale,
                         omitted_history=first.omitted_history, template_hash=first.template_hash,
                         prompt_version=first.prompt_version)
