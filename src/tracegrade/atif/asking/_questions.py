"""The three questions put to the judge: score a step, derive criteria, categorise a failure."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tracegrade.atif.asking._evidence import Evidence
from tracegrade.atif.asking._panel import StepPanel, panel_categorization, panel_score
from tracegrade.atif.asking._prompts import PROMPT_VERSION, categorize_request, derive_request, score_request
from tracegrade.atif.asking._replies import Categorization, parse_categorization, parse_criteria, score_parser
from tracegrade.judge import JudgeProtocol, PanelJudge
from tracegrade.rubric import Rubric

__all__ = ["StepJudgement", "categorize_step", "derive_criteria", "score_step"]


@dataclass(frozen=True, slots=True)
class StepJudgement:
    """The judge's verdict on one step."""

    scores: dict[str, float]
    """Per-criterion scores in [0, 1], exactly the rubric's criteria."""
    score: float
    """The scores combined with the rubric's aggregation."""
    rationale: str
    """The judge's explanation (at most 2,000 characters)."""
    omitted_history: int
    """Earlier steps left out of the judge's view to fit the context budget."""
    template_hash: str
    """SHA-256 of the prompt template used."""
    prompt_version: str = PROMPT_VERSION
    panel: StepPanel | None = None
    """With a panel of judges: what each member said (None with one judge)."""


async def score_step(judge: JudgeProtocol, rubric: Rubric, evidence: Evidence, *, coarse: bool = False,
                     seed: int | None = None) -> StepJudgement:
    """Score the evidence's current step against every criterion of ``rubric``.

    ``coarse`` asks for the local judge's restricted answer schema (see ``score_schema``); ``seed``
    replaces the judge's sampling seed for this request (a repeated judgement), None keeps it.

    Raises:
        JudgeError: ``context_overflow``, a transport/budget code or a protocol code.
    """
    request = score_request(rubric, evidence, coarse=coarse)
    if seed is not None:
        request = dataclasses.replace(request, seed=seed)
    if isinstance(judge, PanelJudge):
        reply, score, panel = await panel_score(judge, rubric, request, score_parser(rubric))
        return StepJudgement(scores=reply.scores, score=score, rationale=reply.rationale,
                             omitted_history=evidence.omitted_history, template_hash=request.template_hash,
                             panel=panel)
    reply = await judge.ask(request, score_parser(rubric))
    return StepJudgement(scores=reply.scores, score=rubric.score(reply.scores), rationale=reply.rationale,
                         omitted_history=evidence.omitted_history, template_hash=request.template_hash)


async def derive_criteria(judge: JudgeProtocol, task: str, max_context_bytes: int) -> Rubric:
    """Criteria for ``task`` proposed by the judge, as a weighted-mean rubric named ``auto``.

    ``max_context_bytes`` is the job's request budget, the same one scoring requests use.

    Raises:
        JudgeError: ``context_overflow``, a transport/budget code or ``invalid_json`` /
            ``schema_violation`` (there is no fallback rubric).
    """
    request = derive_request(task, max_context_bytes)
    reply = await judge.ask(request, parse_criteria)
    return reply.rubric()


async def categorize_step(judge: JudgeProtocol, evidence: Evidence, score: float, *, coarse: bool = False,
                          rubric: Rubric | None = None) -> Categorization:
    """The failure category of the evidence's current step, which scored ``score``.

    ``coarse`` bounds the rationale's length in the answer schema (the local judge); ``rubric``, the one the
    step was scored with, makes the request share the scoring request's prefix.

    Raises:
        JudgeError: ``context_overflow``, a transport/budget code or a protocol code.
    """
    request = categorize_request(evidence, score, rubric=rubric, coarse=coarse)
    if isinstance(judge, PanelJudge):
        return await panel_categorization(judge, request, parse_categorization)
    return await judge.ask(request, parse_categorization)
