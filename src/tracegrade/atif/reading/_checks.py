"""What ``tracegrade validate`` reports about a valid document: its facts and the non-enforced rules it breaks."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tracegrade.atif.reading._models import ContentPart, Metrics, Step, Trajectory
from tracegrade.atif.reading._tree import StepRefs, iter_file_refs

__all__ = ["DocumentFacts", "check_trajectory", "document_facts"]


@dataclass(frozen=True, slots=True)
class DocumentFacts:
    """The facts of one valid document that a per-file report shows (taken before the document is let go)."""

    schema_version: str
    agent: str
    steps: int
    embedded_subagents: int
    """Embedded subagent trajectories at any depth."""
    file_subagents: int
    """File references to subagents (the continuation reference not counted)."""
    continuation: str | None
    warnings: tuple[str, ...]


def document_facts(trajectory: Trajectory, refs: StepRefs | None = None) -> DocumentFacts:
    """Collect the report facts of a validated trajectory, warnings included.

    ``refs`` lets a caller that walks the same trajectory again (for its skeleton) share the search.
    """
    continuation = trajectory.continued_trajectory_ref
    return DocumentFacts(schema_version=trajectory.schema_version, agent=trajectory.agent.name,
                         steps=len(trajectory.steps),
                         embedded_subagents=_count_embedded(trajectory.subagent_trajectories or []),
                         file_subagents=sum(1 for ref in iter_file_refs(trajectory, refs) if ref != continuation),
                         continuation=continuation, warnings=tuple(check_trajectory(trajectory)))


def _count_embedded(subs: list[Trajectory]) -> int:
    return sum(1 + _count_embedded(s.subagent_trajectories or []) for s in subs)


_NEWEST = 8
"""Minor version of the newest ATIF release the models know (ATIF-v1.8)."""
_NUMBER = (int, float)


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
    version = trajectory.schema_version
    older = declared < _NEWEST
    for index, step in enumerate(trajectory.steps):
        features = _step_features(step, declared) if older else []
        metrics = step.metrics
        problems = [] if metrics is None or _metrics_clean(metrics) else _metric_problems(metrics)
        if features or problems:
            where = f"{pointer}/steps/{index}"
            yield from (f"{where}: uses {name} (ATIF-v1.{needed}) but declares {version}" for name, needed in features)
            yield from (f"{where}/metrics{problem}" for problem in problems)
    for index, sub in enumerate(trajectory.subagent_trajectories or ()):
        yield from check_trajectory(sub, f"{pointer}/subagent_trajectories/{index}")


def _document_features(trajectory: Trajectory) -> Iterator[tuple[str, int]]:
    if trajectory.trajectory_id is not None:
        yield "trajectory_id", 7
    if trajectory.subagent_trajectories:
        yield "subagent_trajectories", 7


def _metrics_clean(metrics: Metrics) -> bool:
    """A quick look that settles the usual case: nothing negative, no token ids to compare."""
    for value in (metrics.prompt_tokens, metrics.completion_tokens, metrics.cached_tokens, metrics.cost_usd):
        if value is not None and not value >= 0:
            return False
    return metrics.completion_token_ids is None


def _metric_problems(metrics: Metrics) -> list[str]:
    """What is wrong with a step's metrics, each text starting after ``/metrics``."""
    problems = []
    for name in ("prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd"):
        value = getattr(metrics, name)
        if isinstance(value, _NUMBER) and value < 0:
            problems.append(f"/{name} is negative ({value})")
    ids, logprobs = metrics.completion_token_ids, metrics.logprobs
    if ids is not None and logprobs is not None and len(ids) != len(logprobs):
        problems.append(f": completion_token_ids has {len(ids)} entries but logprobs has {len(logprobs)}")
    if ids is not None and metrics.completion_tokens is not None and len(ids) != metrics.completion_tokens:
        problems.append(
            f": completion_token_ids has {len(ids)} entries but completion_tokens is {metrics.completion_tokens}"
        )
    return problems


def _step_features(step: Step, declared: int) -> list[tuple[str, int]]:
    """Features of ``step`` newer than the ``declared`` minor version, in a fixed order."""
    if declared == _NEWEST - 1:  # only the newest release's feature can be too new: a quick look for it
        return [("audio content", 8)] if _has_audio(step) else []
    found = []
    if declared < 5 and step.is_copied_context is not None:
        found.append(("is_copied_context", 5))
    if declared < 7 and step.llm_call_count is not None:
        found.append(("llm_call_count", 7))
    if declared < 7 and isinstance(step.extra, dict) and "context_management" in step.extra:
        found.append(("extra.context_management", 7))
    parts = list(step.message) if isinstance(step.message, list) else []
    for result in step.observation.results if step.observation else ():
        if isinstance(result.content, list):
            parts.extend(result.content)
        for ref in result.subagent_trajectory_ref or ():
            if declared < 7 and ref.trajectory_id is not None:
                found.append(("subagent_trajectory_ref.trajectory_id", 7))
    if parts and declared < 6:
        found.append(("content parts", 6))
    if any(part.type == "audio" for part in parts):
        found.append(("audio content", 8))
    return found


def _has_audio(step: Step) -> bool:
    message = step.message
    if isinstance(message, list) and _audio_part(message):
        return True
    observation = step.observation
    if observation is None:
        return False
    for result in observation.results:
        content = result.content
        if isinstance(content, list) and _audio_part(content):
            return True
    return False


def _audio_part(parts: list[ContentPart]) -> bool:
    return any(part.type == "audio" for part in parts)
