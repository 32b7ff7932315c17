"""Non-enforced ATIF rules, reported as warnings by ``tracegrade validate``."""

from __future__ import annotations

from collections.abc import Iterator

from evalhub.models.atif import Step, Trajectory

__all__ = ["check_trajectory"]


def _minor(version: str) -> int:
    return int(version.rsplit(".", 1)[-1])


def check_trajectory(trajectory: Trajectory, pointer: str = "") -> Iterator[str]:
    """Yield one-line warnings for rules the reference models do not enforce."""
    declared = _minor(trajectory.schema_version)
    final = trajectory.final_metrics
    if final is not None and final.total_steps is not None and final.total_steps != len(trajectory.steps):
        yield (
            f"{pointer}/final_metrics/total_steps is {final.total_steps} but the trajectory has "
            f"{len(trajectory.steps)} steps"
        )
    for feature, needed in _document_features(trajectory):
        if declared < needed:
            yield f"{pointer}: uses {feature} (ATIF-v1.{needed}) but declares {trajectory.schema_version}"
    for index, step in enumerate(trajectory.steps):
        yield from _check_step(step, f"{pointer}/steps/{index}", declared, trajectory.schema_version)
    for index, sub in enumerate(trajectory.subagent_trajectories or ()):
        yield from check_trajectory(sub, f"{pointer}/subagent_trajectories/{index}")


def _document_features(trajectory: Trajectory) -> Iterator[tuple[str, int]]:
    if trajectory.trajectory_id is not None:
        yield "trajectory_id", 7
    if trajectory.subagent_trajectories:
        yield "subagent_trajectories", 7


def _check_step(step: Step, where: str, declared: int, version: str) -> Iterator[str]:
    for feature, needed in _step_features(step):
        if declared < needed:
            yield f"{where}: uses {feature} (ATIF-v1.{needed}) but declares {version}"
    metrics = step.metrics
    if metrics is None:
        return
    for name in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        value = getattr(metrics, name, None)
        if isinstance(value, int | float) and value < 0:
            yield f"{where}/metrics/{name} is negative ({value})"
    if isinstance(metrics.cost_usd, int | float) and metrics.cost_usd < 0:
        yield f"{where}/metrics/cost_usd is negative ({metrics.cost_usd})"
    ids, logprobs = metrics.completion_token_ids, metrics.logprobs
    if ids is not None and logprobs is not None and len(ids) != len(logprobs):
        yield f"{where}/metrics: completion_token_ids has {len(ids)} entries but logprobs has {len(logprobs)}"
    if ids is not None and metrics.completion_tokens is not None and len(ids) != metrics.completion_tokens:
        yield (
            f"{where}/metrics: completion_token_ids has {len(ids)} entries but completion_tokens is "
            f"{metrics.completion_tokens}"
        )


def _step_features(step: Step) -> Iterator[tuple[str, int]]:
    if step.is_copied_context is not None:
        yield "is_copied_context", 5
    if step.llm_call_count is not None:
        yield "llm_call_count", 7
    if isinstance(step.extra, dict) and "context_management" in step.extra:
        yield "extra.context_management", 7
    parts = list(step.message) if isinstance(step.message, list) else []
    for result in step.observation.results if step.observation else ():
        if isinstance(result.content, list):
            parts.extend(result.content)
        for ref in result.subagent_trajectory_ref or ():
            if ref.trajectory_id is not None:
                yield "subagent_trajectory_ref.trajectory_id", 7
    if parts:
        yield "content parts", 6
    if any(part.type == "audio" for part in parts):
        yield "audio content", 8
