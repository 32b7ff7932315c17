"""The four ways of finding the decisive step of one timeline; each returns what it found and what it cost."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracegrade.atif.localising._params import Strategy
from tracegrade.atif.localising._prompts import all_at_once_request, binary_search_request, step_by_step_request
from tracegrade.atif.localising._replies import attribution_parser, parse_decision, parse_half
from tracegrade.atif.localising._timeline import Timeline, TimelineStep
from tracegrade.atif.scoring._records import StepResult, StepStatus
from tracegrade.errors import JudgeError
from tracegrade.judge import JudgeProtocol, JudgeRequest

__all__ = ["Question", "StrategyOutcome", "all_at_once", "binary_search", "from_scores", "step_by_step"]


@dataclass(slots=True)
class Question:
    """What every judge question of one localisation shares (judge, task, budget, seed), and how many were asked."""

    judge: JudgeProtocol
    task: str | None
    reference: str | None
    limit: int
    seed: int | None = None
    calls: int = 0
    """Questions asked so far (also those that failed)."""
    fallback: str | None = None
    """Why all-at-once gave way to binary search, once it did."""

    async def ask(self, request: JudgeRequest, parse: Any) -> Any:
        """The validated answer, asked with this localisation's seed."""
        self.calls += 1
        if self.seed is not None:
            request = dataclasses.replace(request, seed=self.seed)
        return await self.judge.ask(request, parse)


@dataclass(frozen=True, slots=True)
class StrategyOutcome:
    """The outcome of one strategy on one timeline."""

    used: Strategy
    step: TimelineStep | None
    agent: str | None
    reason: str | None
    left_out: int = 0
    fallback: str | None = None


async def all_at_once(timeline: Timeline, question: Question) -> StrategyOutcome:
    """One request with every step; over budget, binary search instead (the reason is kept)."""
    try:
        request = all_at_once_request(question.task or "", question.reference, timeline.steps, timeline.agents,
                                      question.limit, timeline.candidates)
    except JudgeError as error:
        if error.code != "context_overflow":
            raise
        question.fallback = f"all-at-once: {error.message}"
        found = await binary_search(timeline, question)
        return dataclasses.replace(found, fallback=question.fallback)
    parse = attribution_parser({s.ref for s in timeline.candidates}, set(timeline.agents))
    answer = await question.ask(request, parse)
    return StrategyOutcome(Strategy.ALL_AT_ONCE, timeline.by_ref()[answer.step], answer.agent, answer.reason)


async def step_by_step(timeline: Timeline, question: Question) -> StrategyOutcome:
    """Each candidate step in time order until the judge calls one decisive (every earlier step shown)."""
    left_out = 0
    for place, step in enumerate(timeline.steps):
        if not step.candidate:
            continue
        request, omitted = step_by_step_request(question.task or "", question.reference, timeline.steps[:place],
                                                step, question.limit)
        left_out += omitted
        answer = await question.ask(request, parse_decision)
        if answer.decisive:
            return StrategyOutcome(Strategy.STEP_BY_STEP, step, step.agent, answer.reason, left_out)
    return StrategyOutcome(Strategy.STEP_BY_STEP, None, None, None, left_out)


async def binary_search(timeline: Timeline, question: Question) -> StrategyOutcome:
    """Halve the stretch of candidate steps that holds the decisive one until one is left (about log2(n) requests).

    A half shows every step of its stretch of the timeline (a user's turn goes with the candidates after it).
    """
    candidates = timeline.candidates
    places = [timeline.steps.index(step) for step in candidates]

    def start(k: int) -> int:
        return 0 if k == 0 else places[k] if k < len(places) else len(timeline.steps)

    low, high, left_out, reason = 0, len(candidates), 0, None
    while high - low > 1:
        middle = (low + high) // 2
        first, second = timeline.steps[start(low):start(middle)], timeline.steps[start(middle):start(high)]
        request, shortened = binary_search_request(question.task or "", question.reference, first, second,
                                                   start(low), question.limit)
        answer = await question.ask(request, parse_half)
        left_out, reason = left_out + shortened, answer.reason
        low, high = (low, middle) if answer.first else (middle, high)
    step = candidates[low] if high > low else None
    return StrategyOutcome(Strategy.BINARY_SEARCH, step, step.agent if step else None, reason, left_out)


def from_scores(timeline: Timeline, verdicts: Mapping[tuple[str, int], StepResult],
                threshold: float) -> StrategyOutcome:
    """The first step in time scored below ``threshold`` in a judge run; steps without a verdict are counted."""
    unscored = 0
    for step in timeline.candidates:
        verdict = verdicts.get((step.node_id, step.index))
        if verdict is None or verdict.status is not StepStatus.SCORED or verdict.score is None:
            unscored += 1
            continue
        if verdict.score < threshold:
            return StrategyOutcome(Strategy.FROM_SCORES, step, step.agent, verdict.rationale, unscored)
    return StrategyOutcome(Strategy.FROM_SCORES, None, None, None, unscored)


STRATEGIES = {Strategy.ALL_AT_ONCE: all_at_once, Strategy.STEP_BY_STEP: step_by_step,
              Strategy.BINARY_SEARCH: binary_search}
"""The strategies that ask a judge."""
