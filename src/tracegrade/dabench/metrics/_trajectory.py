"""Metric families about the trajectory: recovery and trajectory shape."""

from __future__ import annotations

from tracegrade.dabench.metrics._families import NO_STEPS, MetricContext, Out
from tracegrade.dabench.reading._records import Step
from tracegrade.dabench.reading._task_signals import critic_steps, phase_pattern
from tracegrade.stats import ratio

__all__ = ["recovery", "trajectory"]

NO_TREE = "no step hierarchy (parent_step_id) or plan DAG in this trace format"


def recovery(ctx: MetricContext) -> Out:
    """Failure detected, first failing stage, recovery success, depth and rate."""
    record, out = ctx.record, Out()
    failed = [s for s in record.steps if not s.ok]
    task_failed = record.succeeded is False
    if record.has_steps:
        detected: int | None = int(bool(failed) or task_failed)
    else:
        detected = 1 if task_failed else None
    out.put("failure_detected", detected, NO_STEPS)
    out.put("failure_stage", failed[0].phase.value if failed else None, "no failed step")
    if not detected:
        out.null(("recovery_success", "recovery_depth"), "no failure to recover from")
    else:
        recovered = int(bool(failed) and record.succeeded is True)
        out.put("recovery_success", recovered)
        out.put("recovery_depth", len(failed) if recovered else None, "the task did not recover")
    out.put("recovery_success_rate", _recovery_rate(record.steps, failed), "no failed step")
    return out


def _recovery_rate(steps: tuple[Step, ...], failed: list[Step]) -> float | None:
    if not failed:
        return None
    recovered = 0
    for bad in failed:
        later = [s for s in steps if s.step_id > bad.step_id and s.ok]
        same = [s for s in later if s.action == bad.action] if bad.action != "__error__" else later
        recovered += bool(same)
    return recovered / len(failed)


def trajectory(ctx: MetricContext) -> Out:
    """Length, phase pattern, branching, depth, critic loops and step efficiency."""
    record, out = ctx.record, Out()
    if not record.has_steps:
        names = ("trajectory_length", "trajectory_summary", "critic_loops", "trajectory_efficiency")
        out.null((*names, "branching_factor", "max_execution_depth"), NO_STEPS)
        return out
    steps = record.steps
    out.put("trajectory_length", len(steps))
    out.put("trajectory_summary", phase_pattern(steps))
    edges = _edges(steps)
    if edges is None:
        out.null(("branching_factor", "max_execution_depth"), NO_TREE)
    else:
        out.put("branching_factor", _branching(edges), "the plan has no edges")
        out.put("max_execution_depth", _depth(edges))
    out.put("critic_loops", max(0, len(critic_steps(steps)) - 1))
    seen: set[tuple[str, str]] = set()
    useful = 0
    for step in steps:
        key = (step.action, step.action_input)
        useful += step.ok and key not in seen
        seen.add(key)
    out.put("trajectory_efficiency", ratio(useful, len(steps)), "no steps (0/0)")
    return out


Edges = dict[str, list[str]]


def _edges(steps: tuple[Step, ...]) -> Edges | None:
    """Parent → children, from explicit parent links, else from the last plan DAG."""
    if any(s.parent_step_id is not None for s in steps):
        edges: Edges = {str(s.step_id): [] for s in steps}
        for step in steps:
            if step.parent_step_id is not None:
                edges.setdefault(str(step.parent_step_id), []).append(str(step.step_id))
        return edges
    plan = next((s.dag for s in reversed(steps) if s.dag), None)
    if plan is None:
        return None
    dag: Edges = {node: [] for node, _ in plan}
    for node, deps in plan:
        for dep in deps:
            dag.setdefault(dep, []).append(node)
    return dag


def _branching(edges: Edges) -> float | None:
    fanouts = [len(children) for children in edges.values() if children]
    return sum(fanouts) / len(fanouts) if fanouts else None


def _depth(edges: Edges) -> int:
    children = {c for kids in edges.values() for c in kids}
    roots = [n for n in edges if n not in children] or list(edges)[:1]
    best, frontier, seen = 0, [(r, 0) for r in roots], set()
    while frontier:
        node, depth = frontier.pop()
        best = max(best, depth)
        if (node, depth) in seen or depth > len(edges):
            continue  # a cycle cannot make the depth exceed the node count
        seen.add((node, depth))
        frontier.extend((child, depth + 1) for child in edges.get(node, []))
    return best
