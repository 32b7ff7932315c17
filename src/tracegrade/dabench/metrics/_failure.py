"""Deterministic failure attribution: outcome status, evaluation bucket → category, stage, agent, fix."""

from __future__ import annotations

from dataclasses import dataclass

from tracegrade.dabench.metrics._families import MetricContext, Out
from tracegrade.dabench.reading._records import Phase

__all__ = ["ATTRIBUTION", "FAILED_OUTCOMES", "HARNESS_BUCKET", "HARNESS_OUTCOME", "BucketMeaning", "evaluation_bucket",
           "failure_taxonomy"]


@dataclass(frozen=True, slots=True)
class BucketMeaning:
    """What one evaluation bucket means."""

    category: str
    root_cause: str
    stage: Phase | None
    """None for a harness or input problem: no stage of the agent's work is to blame."""
    agent: str
    recoverable: bool
    fix: str


HARNESS_BUCKET = "missing_artefact"
"""The bucket of a task whose prediction summary.json lists but the run folder lacks."""
HARNESS_OUTCOME = "missing_artefact"
"""Its ``outcome_status``: the agent's answer is unknown, so the task is no agent failure and is left out of the
statistics of agent behaviour (failure taxonomy, multi-agent sections, comparisons); health counts it."""
FAILED_OUTCOMES = frozenset({"failed", "partial"})
"""The ``outcome_status`` values of a task the agent got wrong."""

ATTRIBUTION: dict[str, BucketMeaning] = {
    HARNESS_BUCKET: BucketMeaning(
        "HARNESS_INPUT_FAILURE", "missing_artefact", None, "harness", False,
        "Collect the run's files again: summary.json lists a prediction.csv the task folder does not hold.",
    ),
    "missing_prediction": BucketMeaning(
        "TOOL_EXECUTION_FAILURE", "no_prediction", Phase.EXECUTE, "Executor", False,
        "Keep a time and step budget and write a best-effort prediction.csv before it runs out.",
    ),
    "execution_failure": BucketMeaning(
        "TOOL_EXECUTION_FAILURE", "execution_failure", Phase.EXECUTE, "Executor", False,
        "Find why the task process stopped (timeout, crash) in its failure_reason and trace.",
    ),
    "max_steps_exhausted": BucketMeaning(
        "PLANNING_FAILURE", "max_steps_exhausted", Phase.PLAN, "Planner", False,
        "Plan fewer exploratory steps and submit as soon as a candidate answer exists.",
    ),
    "invalid_prediction": BucketMeaning(
        "ANSWER_FORMAT_FAILURE", "unreadable_prediction_csv", Phase.AGGREGATE, "Executor", True,
        "Write prediction.csv with a CSV writer: UTF-8, one header row, the same field count on every line.",
    ),
    "extra_columns": BucketMeaning(
        "ANSWER_FORMAT_FAILURE", "extra_columns", Phase.AGGREGATE, "Executor", True,
        "Return only the columns the question asks for.",
    ),
    "wrong_schema": BucketMeaning(
        "DATA_UNDERSTANDING_FAILURE", "schema_misunderstanding", Phase.UNDERSTAND, "Schema Agent", True,
        "Map the question's entities to tables and columns (schema, knowledge.md) before querying.",
    ),
    "wrong_row_count": BucketMeaning(
        "REASONING_FAILURE", "filter_logic_error", Phase.EXECUTE, "Executor", True,
        "Check filters, joins and DISTINCT against every condition in the question.",
    ),
    "wrong_aggregate": BucketMeaning(
        "AGGREGATION_FAILURE", "aggregation_error", Phase.AGGREGATE, "Executor", True,
        "Check the aggregate function, its grouping and the rows it runs over.",
    ),
    "wrong_values": BucketMeaning(
        "DATA_UNDERSTANDING_FAILURE", "value_semantics_error", Phase.UNDERSTAND, "Domain Agent", True,
        "Check what the values mean (codes, units, formats) in knowledge.md and the documents.",
    ),
    "low_recall": BucketMeaning(
        "REASONING_FAILURE", "missing_columns", Phase.PLAN, "Planner", True,
        "Return every quantity the question asks for, one column each.",
    ),
}
_NO_FAILURE = "no failure (outcome correct)"
_COLUMNS = ("failure_category", "root_cause", "recoverable_failure", "severity", "failure_reason", "failure_agent",
            "failure_attribution_stage", "suggested_fix")


def evaluation_bucket(ctx: MetricContext) -> str | None:
    """The outcome error type of a failed task, None when it did not fail (or nothing says it did)."""
    score, record = ctx.score, ctx.record
    if "prediction.csv" in record.missing_artefacts:
        return HARNESS_BUCKET
    reason = (record.failure_reason or "").lower()
    if score is None:
        if record.succeeded is not False:
            return None
        return "max_steps_exhausted" if "max_steps" in reason else "execution_failure"
    if score.prediction_error == "missing_prediction":
        return "max_steps_exhausted" if "max_steps" in reason else "missing_prediction"
    if score.prediction_error is not None:
        return "invalid_prediction"
    if score.final_score >= ctx.params.success_threshold:
        return None
    match = score.match
    if match.recall >= 1.0:
        return "extra_columns"
    if match.recall > 0:
        return "low_recall"
    if match.prediction_columns != match.gold_columns:
        return "wrong_schema"
    if score.prediction_rows != score.gold_rows:
        return "wrong_row_count"
    return "wrong_aggregate" if score.gold_rows == 1 else "wrong_values"


def _outcome(ctx: MetricContext) -> str | None:
    if "prediction.csv" in ctx.record.missing_artefacts:
        return HARNESS_OUTCOME
    final = ctx.prior.get("final_score")
    executed = ctx.prior.get("execution_success")
    if isinstance(final, float):
        if final >= ctx.params.success_threshold:
            return "correct"
        return "partial" if executed == 1 and final > 0 else "failed"
    return "failed" if executed == 0 else None


def _severity(bucket: str, final: object) -> str:
    if bucket in ("missing_prediction", "execution_failure", "max_steps_exhausted", "invalid_prediction",
                  HARNESS_BUCKET):
        return "CRITICAL"
    if not isinstance(final, float) or final == 0:
        return "HIGH"
    return "MEDIUM" if final < 0.5 else "LOW"


def failure_taxonomy(ctx: MetricContext) -> Out:
    """Outcome status and, for a failed task, its structured attribution."""
    out = Out()
    outcome = _outcome(ctx)
    out.put("outcome_status", outcome, "no gold answer and the task did not fail: correctness unknown")
    bucket = evaluation_bucket(ctx)
    out.put("outcome_error_type", bucket, _NO_FAILURE if outcome == "correct" else "no failure evidence")
    if bucket is None:
        out.null(_COLUMNS, _NO_FAILURE if outcome == "correct" else "no failure evidence (no gold, task succeeded)")
        return out
    meaning = ATTRIBUTION[bucket]
    out.put("failure_category", meaning.category)
    out.put("root_cause", _root_cause(bucket, ctx.record.failure_reason, meaning.root_cause))
    out.put("recoverable_failure", meaning.recoverable)
    out.put("severity", _severity(bucket, ctx.prior.get("final_score")))
    out.put("failure_reason", ctx.record.failure_reason or _explain(ctx, bucket))
    out.put("failure_agent", meaning.agent if meaning.stage is None else _agent(ctx, meaning))
    out.put("failure_attribution_stage", meaning.stage.value if meaning.stage is not None else None,
            "harness or input problem: no stage of the agent's work")
    out.put("suggested_fix", meaning.fix)
    return out


def _root_cause(bucket: str, reason: str | None, default: str) -> str:
    text = (reason or "").lower()
    if bucket in ("missing_prediction", "execution_failure"):
        if "timed out" in text or "budget" in text:
            return "timeout"
        if "uncaught" in text or "exit" in text:
            return "crash"
    return default


def _explain(ctx: MetricContext, bucket: str) -> str:
    score = ctx.score
    if score is None:
        return bucket.replace("_", " ")
    m = score.match
    return (
        f"{bucket.replace('_', ' ')}: {m.covered_gold_columns}/{m.gold_columns} gold columns matched, "
        f"{m.extra_columns} extra of {m.prediction_columns} predicted; rows {score.prediction_rows} vs "
        f"{score.gold_rows} gold"
    )


def _agent(ctx: MetricContext, meaning: BucketMeaning) -> str:
    steps = ctx.record.steps
    failed = next((s.agent for s in steps if not s.ok and s.agent), None)
    if failed:
        return failed
    in_stage = [s.agent for s in steps if s.phase is meaning.stage and s.agent]
    return in_stage[-1] if in_stage else meaning.agent
