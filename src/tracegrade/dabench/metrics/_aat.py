"""Metric families of multi-agent (AAT) runs: coordinator, specialists, MAS effectiveness, stages, actions."""

from __future__ import annotations

from tracegrade.dabench.metrics._answer import columns_of, kdd_match, kdd_score
from tracegrade.dabench.metrics._families import NO_COORDINATOR, NO_STEPS, NO_TIMINGS, NO_TOKENS, MetricContext, Out
from tracegrade.dabench.reading._records import Step, TraceFormat
from tracegrade.dabench.reading._task_signals import specialists_called
from tracegrade.dabench.reading._vocab import ACTION_COLUMNS, PLAN_ACTIONS, SPECIALISTS, STAGE_PREFIX, action_column

__all__ = ["STAGE_COLUMNS", "aat", "mas_effectiveness", "per_action", "per_stage", "stage_column"]

STAGES = ("understanding", "planning", "execution", "verification", "summary")


def stage_column(stage: str, measure: str) -> str:
    """Per-stage column name; the execution stage's time is ``execution_stage_time`` (wall clock keeps the name)."""
    if stage == "execution" and measure == "time":
        return "execution_stage_time"
    return f"{stage}_{measure}"


STAGE_COLUMNS = tuple(stage_column(s, m) for s in STAGES for m in ("time", "calls", "tokens"))


def aat(ctx: MetricContext) -> Out:
    """Coordinator calls and decision, checkpoints, specialist activation."""
    record, out = ctx.record, Out()
    names = ("coordinator_calls", "coordinator_checkpoints", "specialist_participation")
    out.put("coordinator_final_decision", record.coordinator_final_decision, "no coordinator_final_decision")
    if record.trace_format is not TraceFormat.RICH:
        specialists = [f"{k}_agent_{v}" for k in SPECIALISTS for v in ("called", "used")]
        out.null((*names, *specialists), NO_COORDINATOR)
        return out
    steps = record.steps
    out.put("coordinator_calls", sum(1 for s in steps if s.agent_type == "coordinator"))
    out.put("coordinator_checkpoints", sum(1 for s in steps if s.coordinator_checkpoint))
    called = specialists_called(steps)
    for kind in SPECIALISTS:
        out.put(f"{kind}_agent_called", int(kind in called))
        out.put(f"{kind}_agent_used", int(kind in called))
    out.put("specialist_participation", len(called) / len(SPECIALISTS))
    return out


def mas_effectiveness(ctx: MetricContext) -> Out:
    """First vs final answer correctness and whether replans and retries paid off."""
    record, out, thr = ctx.record, Out(), ctx.params.success_threshold
    final = ctx.prior.get("final_score")
    final_ok = int(final >= thr) if isinstance(final, float) else None
    out.put("final_answer_correct", final_ok, ctx.reasons_for("final_score"))
    drafts = [s.answer for s in record.steps if s.answer is not None]
    gold = record.task.gold
    initial = None
    if drafts and gold is not None:
        # score_answer(...).final_score without the DataSpace and cell checks this column does not use
        first = kdd_score(kdd_match(columns_of(gold), columns_of(drafts[0])), ctx.params.lam)
        initial = int(first >= thr)
    out.put("initial_answer_correct", initial, "needs gold and an answer step in the trace")
    decisions = [(s.decision or "").upper() for s in record.steps if s.agent_type == "coordinator"]
    rich = record.trace_format is TraceFormat.RICH
    for kind, label in (("replan", "REPLAN"), ("retry", "RETRY_EXECUTION")):
        requested = decisions.count(label)
        out.put(f"{kind}_requested", requested if rich else None, NO_COORDINATOR)
        success = None if not requested or final_ok is None else final_ok
        out.put(f"{kind}_successful", success, f"no {kind} requested, or no gold")
    recovered = None if initial is None or final_ok is None else int(initial == 0 and final_ok == 1)
    replans, attempts = ctx.prior.get("replan_count"), ctx.prior.get("execution_attempts")
    after_replan = None if recovered is None or replans is None else int(bool(recovered) and bool(replans))
    after_retry = None
    if recovered is not None and isinstance(attempts, int):
        after_retry = int(bool(recovered) and attempts > 1)
    out.put("recovered_after_replan", after_replan, "needs initial and final correctness and replan_count")
    out.put("recovered_after_retry", after_retry, "needs initial and final correctness and execution_attempts")
    return out


def per_stage(ctx: MetricContext) -> Out:
    """Time, calls and tokens per AAT stage."""
    record, out = ctx.record, Out()
    if not record.has_steps:
        out.null(STAGE_COLUMNS, NO_STEPS)
        return out
    timed = any(s.duration_seconds is not None for s in record.steps)
    counted = any(s.tokens_input is not None or s.tokens_output is not None for s in record.steps)
    by_stage: dict[str, list[Step]] = {stage: [] for stage in STAGES}
    for step in record.steps:  # one pass; each stage keeps its steps in trace order
        by_stage[STAGE_PREFIX[step.phase]].append(step)
    for stage, steps in by_stage.items():
        seconds = sum(s.duration_seconds or 0.0 for s in steps)
        out.put(stage_column(stage, "time"), seconds if timed else None, NO_TIMINGS)
        out.put(stage_column(stage, "calls"), len(steps))
        out.put(stage_column(stage, "tokens"), sum(s.tokens or 0 for s in steps) if counted else None, NO_TOKENS)
    return out


ACTION_METRIC_COLUMNS = tuple(f"{a}_{m}" for a in ACTION_COLUMNS for m in ("calls", "time"))


def per_action(ctx: MetricContext) -> Out:
    """Calls and time per tool (plus planner steps)."""
    record, out = ctx.record, Out()
    if not record.has_steps:
        out.null(ACTION_METRIC_COLUMNS, NO_STEPS)
        return out
    calls = dict.fromkeys(ACTION_COLUMNS, 0)
    seconds = dict.fromkeys(ACTION_COLUMNS, 0.0)
    timed = False
    for step in record.steps:
        if step.action in PLAN_ACTIONS:
            calls["planner"] += 1
            seconds["planner"] += step.duration_seconds or 0.0
            timed = timed or step.duration_seconds is not None
        for call in step.tool_calls:
            column = action_column(call.tool_name, call.args_key)
            calls[column] += 1
            seconds[column] += call.latency_seconds or 0.0
            timed = timed or call.latency_seconds is not None
    for action in ACTION_COLUMNS:
        out.put(f"{action}_calls", calls[action])
        out.put(f"{action}_time", seconds[action] if timed else None, NO_TIMINGS)
    return out
