"""Run one ATIF scoring job with I/O: judge, cache, telemetry, artifacts (shared by the CLI and EvalHub)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from tracegrade.atif._run import JobContext, score_collection
from tracegrade.atif.criteria._params import CriteriaParams
from tracegrade.atif.output._artifacts import write_artifacts
from tracegrade.atif.output._report import node_sections
from tracegrade.atif.reading._collection import read_collection
from tracegrade.atif.scoring._params import ScoringOptions
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import ConfigError
from tracegrade.judge import (
    Judge,
    JudgeOptions,
    JudgeProtocol,
    JudgeSettings,
    JudgeTelemetry,
    PanelSpec,
    ResponseFormat,
)
from tracegrade.runs import RunFolder

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider

    from tracegrade.judge import JudgeCache

OptionsT = TypeVar("OptionsT", bound=JudgeOptions)

__all__ = ["JudgeTarget", "effective_options", "judge_settings", "open_judge", "run_atif_job"]


@dataclass(frozen=True, slots=True)
class JudgeTarget:
    """Where the judge is: an OpenAI-compatible endpoint, or ``local`` for the embedded llama.cpp judge."""

    url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    local: bool = False
    response_format: ResponseFormat = ResponseFormat.AUTO
    share_cache: bool = False
    """Reuse cached answers of other endpoints serving a model of the same name (recorded in provenance)."""
    panel: PanelSpec | None = None
    """A panel of judges asked instead of one (``url`` and ``model`` are then unused)."""


def judge_settings(target: JudgeTarget, options: JudgeOptions) -> JudgeSettings:
    """Judge settings for an endpoint target, with the job's judge options."""
    if target.url is None or target.model is None:
        raise ConfigError("judge: give --judge-url and --judge-model, or --judge local")
    return JudgeSettings(base_url=target.url, model=target.model, api_key_env=target.api_key_env,
                         response_format=target.response_format, options=options,
                         share_cache_across_endpoints=target.share_cache)


@asynccontextmanager
async def open_judge(
    target: JudgeTarget,
    options: JudgeOptions,
    *,
    cache_path: Path | None,
    telemetry: JudgeTelemetry | None = None,
) -> AsyncIterator[JudgeProtocol]:
    """Open the judge (starting and stopping the local judge when asked)."""
    cache = _open_cache(cache_path) if cache_path is not None else None
    try:
        if target.panel is not None:
            from tracegrade.judge import PanelJudge

            async with PanelJudge(target.panel, options, cache=cache, telemetry=telemetry) as panel:
                yield panel
            return
        async with _settings(target, options) as settings, Judge(settings, cache=cache, telemetry=telemetry) as judge:
            yield judge
    finally:
        if cache is not None:
            cache.close()


@asynccontextmanager
async def _settings(target: JudgeTarget, options: JudgeOptions) -> AsyncIterator[JudgeSettings]:
    """The judge's settings, for as long as the local judge (when asked for) runs."""
    if not target.local:
        yield judge_settings(target, options)
        return
    from tracegrade.judge import LocalJudge

    async with LocalJudge(options=options) as settings:
        yield settings


def _open_cache(path: Path) -> JudgeCache:
    from tracegrade.judge import JudgeCache

    return JudgeCache(path)


def effective_options(options: OptionsT, target: JudgeTarget) -> OptionsT:
    """The options a job runs with, recorded as such.

    With the local judge: the options it fixes (one call at a time, its deadline, greedy short answers), and
    its smaller request budget unless one was given.
    """
    if not target.local:
        return options
    from tracegrade.judge import LOCAL_MAX_CONTEXT_BYTES, LOCAL_PINNED_OPTIONS

    update = dict(LOCAL_PINNED_OPTIONS)
    if "max_context_bytes" not in options.model_fields_set:
        update["max_context_bytes"] = min(options.max_context_bytes, LOCAL_MAX_CONTEXT_BYTES)
    return options.model_copy(update=update)


async def run_atif_job(
    paths: Sequence[str | Path],
    options: ScoringOptions,
    criteria: CriteriaParams,
    target: JudgeTarget,
    context: JobContext,
    *,
    out_dir: Path | RunFolder | None,
    cache_path: Path | None,
    meter_provider: MeterProvider | None = None,
) -> tuple[EvaluationResults, dict[str, Path]]:
    """Score ``paths`` and write the artifacts (also for failed or interrupted jobs).

    Memory holds the roots in flight, not the collection: each root is read again when its turn comes
    and its records are spooled to an unnamed file in the run folder as it finishes (see
    ``score_collection``).

    ``context.local_judge`` is taken from ``target``. With the local judge the request budget is at
    most ``LOCAL_MAX_CONTEXT_BYTES`` unless ``max_context_bytes`` was given: scoring and derivation
    then share (and record) that budget.
    """
    options = effective_options(options, target)
    context = dataclasses.replace(context, local_judge=target.local)
    telemetry = JudgeTelemetry(
        meter_provider, prefix="atif", job_id=context.job_id, scoring_mode=criteria.scoring_mode.value
    )
    outline = [await asyncio.to_thread(read_collection, paths, options.load_options())]  # bad input: before the judge
    if context.spool_dir is None:
        context = dataclasses.replace(context, spool_dir=_spool_dir(out_dir))
    if out_dir is not None and context.sections is None:  # the report's step list rendered while others are scored
        context = dataclasses.replace(context, sections=node_sections)
    async with open_judge(target, options, cache_path=cache_path, telemetry=telemetry) as judge:
        results = await score_collection(outline.pop(), options, criteria, judge, context)  # freed once scored
    artifacts = write_artifacts(results, out_dir) if out_dir is not None else {}
    return results, artifacts


def _spool_dir(out_dir: Path | RunFolder | None) -> Path | None:
    """The run folder when it exists already (the spool then shares its disk), else None."""
    path = out_dir.path if isinstance(out_dir, RunFolder) else out_dir
    return path if path is not None and path.is_dir() else None
