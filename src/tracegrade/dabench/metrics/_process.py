"""Metric families about the agent's process: autonomy, planning, tools, data understanding, verification."""

from __future__ import annotations

import itertools

from tracegrade.dabench.metrics._families import NO_COORDINATOR, NO_STEPS, MetricContext, Out
from tracegrade.dabench.reading._records import Phase, TraceFormat
from tracegrade.dabench.reading._task_signals import (
    critic_steps,
    critic_verdict,
    execution_attempts,
    plan_attempts,
    specialists_called,
    verifier_steps,
)
from tracegrade.dabench.reading._vocab import PLAN_ACTIONS, tool_category
from tracegrade.stats import ratio

__all__ = ["autonomy", "data_understanding", "planning", "tool_usage", "verification"]

NO_PLAN = "no plan attempts recorded in this trace format"
NO_ATTEMPTS = "no execution attempts recorded in this trace format"


def autonomy(ctx: MetricContext) -> Out:
    """First-try success, replans, autonomy score, coordinator and user interventions."""
    record, params, out = ctx.record, ctx.params, Out()
    plans, attempts = plan_attempts(record), execution_attempts(record)
    replans = None if plans is None else max(0, plans - 1)
    out.put("replan_count", replans, NO_PLAN)
    score = None if replans is None else min(1.0, max(0.0, 1.0 - replans / params.max_replans))
    out.put("autonomy_score", score, NO_PLAN)
    success = ctx.prior.get("execution_success")
    first_try = None if attempts is None or success is None else int(success == 1 and attempts == 1 and not replans)
    out.put("first_try_success", first_try, NO_ATTEMPTS)
    if record.trace_format is TraceFormat.RICH:
        calls = sum(1 for s in record.steps if s.agent_type == "coordinator")
        out.put("coordinator_interventions", max(0, calls - params.baseline_coordinator_calls))
    else:
        out.put("coordinator_interventions", None, NO_COORDINATOR)
    humans = sum(1 for s in record.steps if s.agent_type == "human")
    out.put("user_intervention_count", humans if record.has_steps else None, NO_STEPS)
    return out


def planning(ctx: MetricContext) -> Out:
    """Planner steps, revisions, dead ends and plan-execution alignment."""
    record, out = ctx.record, Out()
    plans, attempts = plan_attempts(record), execution_attempts(record)
    planner = sum(1 for s in record.steps if s.action in PLAN_ACTIONS or s.agent_type == "planner")
    out.put("planner_steps", planner if record.has_steps else None, NO_STEPS)
    out.put("plan_attempts", plans, NO_PLAN)
    out.put("execution_attempts", attempts, NO_ATTEMPTS)
    out.put("planner_revisions", None if plans is None else max(0, plans - 1), NO_PLAN)
    out.put("planner_dead_ends", None if attempts is None else max(0, attempts - 1), NO_ATTEMPTS)
    out.put("plan_execution_alignment", None if not attempts else 1.0 / attempts, NO_ATTEMPTS)
    return out


def tool_usage(ctx: MetricContext) -> Out:
    """Tool diversity, useful/wasted calls, efficiency, retries and selection accuracy."""
    record, out = ctx.record, Out()
    names = ("unique_tools_used", "tool_diversity", "useful_tool_calls", "wasted_tool_calls", "tool_efficiency")
    if not record.has_steps:
        out.null((*names, "tool_retry_count", "tool_selection_accuracy"), NO_STEPS)
        return out
    calls = [c for s in record.steps for c in s.tool_calls]
    ok = [c for c in calls if c.ok]
    categories = [tool_category(c.tool_name) for c in ok]
    explore = {(c.tool_name, c.args_key) for c, kind in zip(ok, categories, strict=True) if kind == "explore"}
    useful = len(explore) + ("execute" in categories) + ("answer" in categories)
    total, failures = len(calls), len(calls) - len(ok)
    zero = "no tool calls (0/0)"
    out.put("unique_tools_used", len({c.tool_name for c in calls}))
    out.put("tool_diversity", ratio(len({c.tool_name for c in calls}), total), zero)
    out.put("useful_tool_calls", useful)
    out.put("wasted_tool_calls", total - useful)
    out.put("tool_efficiency", ratio(useful, total), zero)
    accuracy = ratio(useful - failures, total)
    out.put("tool_selection_accuracy", None if accuracy is None else max(0.0, accuracy), zero)
    follow_ups = sum(1 for a, b in itertools.pairwise(calls) if not a.ok and a.tool_name == b.tool_name)
    out.put("tool_retry_count", follow_ups + sum(c.retry_count or 0 for c in calls))
    return out


def data_understanding(ctx: MetricContext) -> Out:
    """Tables and columns discovered, exploration steps and the seed's weighted understanding score."""
    record, out = ctx.record, Out()
    names = ("tables_discovered", "columns_discovered", "relevant_tables_found", "schema_exploration_steps")
    if not record.has_steps:
        out.null((*names, "relevant_columns_found", "specialist_activation_score"), NO_STEPS)
        out.null(("discovery_score", "data_understanding_score"), NO_STEPS)
        return out
    tables = {v for s in record.steps for k, v in s.facts if k == "table"}
    columns = {v for s in record.steps for k, v in s.facts if k == "column"}
    out.put("tables_discovered", len(tables))
    out.put("columns_discovered", len(columns))
    out.put("relevant_tables_found", len(tables))
    relevant_columns = ctx.prior.get("matched_columns")
    out.put("relevant_columns_found", relevant_columns, ctx.reasons_for("matched_columns"))
    out.put("schema_exploration_steps", sum(1 for s in record.steps if s.phase is Phase.UNDERSTAND))
    discovery = _discovery(len(tables), len(columns), relevant_columns)
    out.put("discovery_score", discovery, "needs discovered tables and columns and matched_columns (gold)")
    specialist = _specialist_score(ctx)
    out.put("specialist_activation_score", specialist, "no specialist agents in this trace format")
    combined = None if specialist is None or discovery is None else 0.5 * specialist + 0.5 * discovery
    reason = "needs both specialist_activation_score and discovery_score"
    out.put("data_understanding_score", None if combined is None else min(1.0, max(0.0, combined)), reason)
    return out


def _discovery(tables: int, columns: int, relevant_columns: object) -> float | None:
    if not isinstance(relevant_columns, int) or not tables or not columns:
        return None
    table_score = 1.0  # relevant tables = all discovered (heuristic: no relevance oracle)
    column_score = min(1.0, relevant_columns / columns)
    return (table_score + column_score) / 2


def _specialist_score(ctx: MetricContext) -> float | None:
    record = ctx.record
    if record.trace_format is not TraceFormat.RICH:
        return None
    docs = bool(record.documents_required)
    called = specialists_called(record.steps)
    required = 2 + (1 if docs else 0)
    activated = ("schema" in called) + ("domain" in called) + (("document" in called) if docs else 0)
    return activated / required


def verification(ctx: MetricContext) -> Out:
    """Critic checks (legacy verification_*), the AAT verifier and the coordinator's approval."""
    record, out = ctx.record, Out()
    if not record.has_steps:
        out.null(_VERIFICATION, NO_STEPS)
        return out
    critics = critic_steps(record.steps)
    verdicts = [v for v in (critic_verdict(s) for s in critics) if v is not None]
    no_critic = "no critic check with a verdict in this trace"
    passed = int(verdicts[-1]) if verdicts else None
    score = ratio(sum(verdicts), len(verdicts))
    failures = sum(1 for v in verdicts if not v)
    out.put("verification_triggered", int(bool(critics)))
    out.put("verification_steps", len(critics))
    for prefix in ("critic_verification", "verification"):
        out.put(f"{prefix}_passed", passed, no_critic)
        out.put(f"{prefix}_score", score, no_critic)
    out.put("critic_failures_detected", failures if critics else None, "no critic step in this trace")
    out.put("verification_failures_detected", failures if critics else None, "no critic step in this trace")
    _aat(ctx, out)
    return out


def _aat(ctx: MetricContext, out: Out) -> None:
    record = ctx.record
    rich = record.trace_format is TraceFormat.RICH
    verifiers = verifier_steps(record.steps)
    out.put("aat_verification_triggered", int(bool(verifiers)) if rich else None, NO_COORDINATOR)
    decision = record.coordinator_final_decision
    passed = None if decision is None else int(decision.upper() == "APPROVE_FINAL")
    out.put("aat_verification_passed", passed, "no coordinator_final_decision in this trace")
    confidence = next((s.confidence for s in reversed(verifiers) if s.confidence is not None), None)
    out.put("aat_verification_score", confidence, "no AAT verifier confidence in this trace")


_VERIFICATION = ("verification_triggered", "verification_steps", "verification_passed",
                 "verification_score", "verification_failures_detected", "critic_verification_passed",
                 "critic_verification_score", "critic_failures_detected", "aat_verification_triggered",
                 "aat_verification_passed", "aat_verification_score")
