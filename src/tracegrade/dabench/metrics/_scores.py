"""Metric families that combine others: confidence and calibration, the analyst score, research metrics."""

from __future__ import annotations

from collections import Counter

from tracegrade.dabench.metrics._answer import columns_of
from tracegrade.dabench.metrics._families import MetricContext, Out
from tracegrade.dabench.reading._records import AnswerTable

__all__ = ["ANALYST_WEIGHTS", "calibration_bucket", "composite", "confidence", "research"]

ANALYST_WEIGHTS = (("autonomy_score", 0.4), ("tool_efficiency", 0.3), ("verification_score", 0.3))
_BUCKETS = ((0.2, "very_low"), (0.4, "low"), (0.6, "medium"), (0.8, "high"))


def calibration_bucket(confidence: float) -> str:
    """very_low [0, 0.2), low [0.2, 0.4), medium [0.4, 0.6), high [0.6, 0.8), very_high [0.8, 1]."""
    return next((name for upper, name in _BUCKETS if confidence < upper), "very_high")


def confidence(ctx: MetricContext) -> Out:
    """The agent's stated confidence against its correctness."""
    record, out = ctx.record, Out()
    stated = record.confidence_score
    if stated is None:
        stated = next((s.confidence for s in reversed(record.steps) if s.confidence is not None), None)
    no_conf = "no confidence stated in this trace"
    out.put("confidence_score", stated, no_conf)
    out.put("calibration_bucket", None if stated is None else calibration_bucket(stated), no_conf)
    final = ctx.prior.get("final_score")
    if stated is None or not isinstance(final, float):
        reason = no_conf if stated is None else ctx.reasons_for("final_score")
        out.null(("confidence_correct", "confidence_error"), reason)
        return out
    out.put("confidence_correct", int(stated >= 0.8 and final >= ctx.params.success_threshold))
    out.put("confidence_error", abs(stated - final))
    return out


def composite(ctx: MetricContext) -> Out:
    """analyst_score = 0.4·autonomy_score + 0.3·tool_efficiency + 0.3·verification_score."""
    out = Out()
    missing = [name for name, _ in ANALYST_WEIGHTS if not isinstance(ctx.prior.get(name), int | float)]
    if missing:
        out.put("analyst_score", None, f"needs {', '.join(missing)}")
        return out
    total = 0.0
    for name, weight in ANALYST_WEIGHTS:
        value = ctx.prior[name]
        total += weight * float(value) if isinstance(value, int | float) else 0.0
    out.put("analyst_score", total)
    return out


def research(ctx: MetricContext) -> Out:
    """Cross-source reasoning success, explanation quality (from the trace) and vote-round reproducibility."""
    record, out = ctx.record, Out()
    cross = ctx.prior.get("requires_cross_source_reasoning")
    final = ctx.prior.get("final_score")
    if cross is not True:
        reason = "single-source task" if cross is False else ctx.reasons_for("requires_cross_source_reasoning")
        out.put("cross_source_reasoning_success", None, reason)
    elif not isinstance(final, float):
        out.put("cross_source_reasoning_success", None, ctx.reasons_for("final_score"))
    else:
        out.put("cross_source_reasoning_success", int(final >= ctx.params.success_threshold))
    reason = "no explanation_quality_score in this trace (part 1 does not grade explanations)"
    out.put("explanation_quality_score", record.explanation_quality_score, reason)
    out.put("reproducibility_score", _reproducibility(record.answer, record.vote_answers), "no vote rounds")
    return out


def answer_signature(table: AnswerTable | None) -> Counter[tuple[str, ...]] | None:
    """An answer's column signatures as a multiset (names and order ignored), None for no answer."""
    return None if table is None else Counter(tuple(sorted(column)) for column in columns_of(table))


def _reproducibility(primary: AnswerTable | None, votes: tuple[AnswerTable | None, ...]) -> float | None:
    if not votes:
        return None
    reference = answer_signature(primary)
    same = sum(1 for vote in votes if reference is not None and answer_signature(vote) == reference)
    return same / len(votes)
