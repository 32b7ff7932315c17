"""A panel's verdict on a step: every member's score aggregated, categories put to a vote.

The step score is the aggregate (mean, median or weighted mean) of the members' own step scores, and each
criterion's score the same aggregate of the members' criterion scores. A member that fails leaves the step's
panel smaller and is named in the record; a step with fewer answers than the panel's minimum fails with
``panel_too_small``. A category vote whose top count is shared is ``contested``: never broken by list order.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.atif.asking._replies import Categorization, ScoreReply
from tracegrade.errors import JudgeError
from tracegrade.rubric import Rubric

if TYPE_CHECKING:  # the judge's client (aiohttp) stays out of every command that only reads records
    from tracegrade.judge import JudgeRequest, MemberAnswer, PanelAggregation, PanelJudge

__all__ = ["CONTESTED", "StepPanel", "aggregate", "panel_categorization", "panel_score"]

CONTESTED = "contested"
"""The category of a step whose panel vote is tied."""
_MAX_RATIONALE = 2000

T = TypeVar("T")


class StepPanel(BaseModel):
    """What each member of a panel said about one step."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    aggregation: str
    size: int = Field(description="Judges on the panel.")
    answered: int = Field(description="Judges whose score this step's aggregate is made of.")
    scores: dict[str, float] = Field(description="Each answering judge's own step score, by name.")
    failed: dict[str, str] = Field(description="Judges that failed on this step, with the safe error code.")
    spread: float | None = Field(description="Highest minus lowest member score; null with no answer.")
    straddles: bool | None = Field(None, description="Some members below the failure threshold and some not.")

    def judged(self, failure_threshold: float) -> StepPanel:
        """The record with ``straddles`` decided against the run's failure threshold."""
        values = list(self.scores.values())
        straddles = bool(values) and min(values) < failure_threshold <= max(values)
        return self.model_copy(update={"straddles": straddles})


def aggregate(values: Sequence[float], weights: Sequence[float], how: PanelAggregation) -> float:
    """The panel's aggregate of ``values`` (one per answering member, with its weight)."""
    if how == "median":
        return float(statistics.median(values))
    if how == "weighted_mean":
        return sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)
    return sum(values) / len(values)


async def _answered(panel: PanelJudge, request: JudgeRequest, parse: object, kind: type[T]
                    ) -> tuple[list[MemberAnswer], list[tuple[MemberAnswer, T]]]:
    """Every member's answer, and the usable ones with their reply.

    Raises:
        JudgeError: ``panel_too_small`` when fewer members answered than the panel needs.
    """
    answers = await panel.ask_all(request, parse)  # type: ignore[arg-type]
    good = [(a, a.reply) for a in answers if isinstance(a.reply, kind)]
    if len(good) < panel.spec.needed or not good:
        failed = ", ".join(f"{a.name} ({a.error_code})" for a in answers if a.reply is None)
        raise JudgeError(f"the panel answered {len(good)} of {len(answers)}, fewer than {panel.spec.needed} "
                         f"(failed: {failed})", code="panel_too_small")
    return answers, good


async def panel_score(panel: PanelJudge, rubric: Rubric, request: JudgeRequest,
                      parse: object) -> tuple[ScoreReply, float, StepPanel]:
    """Every member's scores of one step, aggregated: the reply, the step score and the panel record.

    Raises:
        JudgeError: ``panel_too_small`` when fewer members answered than the panel needs.
    """
    answers, good = await _answered(panel, request, parse, ScoreReply)
    how = panel.spec.aggregation
    weights = [a.weight for a, _ in good]
    own = {a.name: rubric.score(reply.scores) for a, reply in good}
    criteria = {name: aggregate([reply.scores[name] for _, reply in good], weights, how)
                for name in sorted(rubric.names)}
    score = aggregate(list(own.values()), weights, how)
    rationale = " | ".join(f"[{a.name}] {reply.rationale}" for a, reply in good)[:_MAX_RATIONALE]
    record = StepPanel(
        aggregation=how, size=len(answers), answered=len(good), scores=own,
        failed={a.name: a.error_code or "no_answer" for a in answers if a.reply is None},
        spread=max(own.values()) - min(own.values()),
    )
    return ScoreReply(scores=criteria, rationale=rationale), score, record


async def panel_categorization(panel: PanelJudge, request: JudgeRequest, parse: object) -> Categorization:
    """The members' categories put to a vote; a shared top count is ``contested``.

    Raises:
        JudgeError: ``panel_too_small`` when fewer members answered than the panel needs.
    """
    _, good = await _answered(panel, request, parse, Categorization)
    votes = Counter(reply.category for _, reply in good)
    ranked = votes.most_common()
    top = ranked[0][1]
    leaders = sorted(name for name, count in ranked if count == top)
    category = leaders[0] if len(leaders) == 1 else CONTESTED
    tally = ", ".join(f"{name} {count}" for name, count in sorted(votes.items()))
    reasons = " | ".join(f"[{a.name}: {reply.category}] {reply.rationale}" for a, reply in good)
    return Categorization(category=category, rationale=f"votes: {tally} | {reasons}"[:_MAX_RATIONALE])
