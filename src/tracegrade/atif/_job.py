"""Run one ATIF scoring job with I/O: judge, cache, telemetry, artifacts (shared by the CLI and EvalHub).

:func:`run_judge_job` is ``tracegrade judge`` without its terminal: the job id, the run folder, Ctrl-C and
SIGTERM, the OpenTelemetry meters, and the :class:`JobOutcome` the command turns into its exit code.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tracegrade.atif._run import JobContext, score_collection
from tracegrade.atif.criteria._params import CriteriaParams
from tracegrade.atif.output._artifacts import open_run_folder, write_artifacts
from tracegrade.atif.output._step_list import KeptSections
from tracegrade.atif.reading._collection import read_collection
from tracegrade.atif.scoring._engine import RunProgress, ScoringEngine
from tracegrade.atif.scoring._params import ScoringOptions
from tracegrade.atif.scoring._records import NodeResult
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import ConfigError
from tracegrade.judge import (
    Judge,
    JudgeOptions,
    JudgeProtocol,
    JudgeSettings,
    JudgeStats,
    JudgeTelemetry,
    PanelSpec,
    ResponseFormat,
)
from tracegrade.runs import STOP_SIGNALS, JobStatus, RunFolder, Shard, job_id_for

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.sdk.metrics import MeterProvider as SdkMeterProvider

OptionsT = TypeVar("OptionsT", bound=JudgeOptions)

__all__ = [
    "JobOutcome", "JudgeInFront", "JudgeJob", "JudgeRun", "JudgeTarget", "chained_on_root", "effective_options",
    "judge_settings", "judged_run", "open_judge", "otlp_meter_provider", "run_atif_job", "run_judge_job",
]


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


class JudgeInFront:
    """A judge in front of a real :class:`Judge` (its cache, settings, counters and provenance are the real one's).

    A subclass answers :meth:`ask` its own way (from the cache, with a stand-in, by collecting requests).
    """

    def __init__(self, judge: Judge) -> None:
        self._judge = judge

    @property
    def settings(self) -> JudgeSettings:
        """The real judge's settings."""
        return self._judge.settings

    @property
    def stats(self) -> JudgeStats:
        """The real judge's counters (its cache hits and misses)."""
        return self._judge.stats

    def provenance(self) -> dict[str, Any]:
        """The real judge's provenance."""
        return self._judge.provenance()


def judge_settings(target: JudgeTarget, options: JudgeOptions) -> JudgeSettings:
    """Judge settings for an endpoint target, with the job's judge options."""
    if target.url is None or target.model is None:
        raise ConfigError("judge: give --judge-url and --judge-model, or --judge local")
    return JudgeSettings(base_url=target.url, model=target.model, api_key_env=target.api_key_env,
                         response_format=target.response_format, options=options,
                         share_cache_across_endpoints=target.share_cache)


@asynccontextmanager
async def open_judge(target: JudgeTarget, options: JudgeOptions, *, cache_path: Path | None,
                     telemetry: JudgeTelemetry | None = None) -> AsyncIterator[JudgeProtocol]:
    """Open the judge (starting and stopping the local judge when asked)."""
    from tracegrade.judge import JudgeCache

    cache = JudgeCache(cache_path) if cache_path is not None else None
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


async def run_atif_job(paths: Sequence[str | Path], options: ScoringOptions, criteria: CriteriaParams,
                       target: JudgeTarget, context: JobContext, *, out_dir: Path | RunFolder | None,
                       cache_path: Path | None,
                       meter_provider: MeterProvider | None = None) -> tuple[EvaluationResults, dict[str, Path]]:
    """Score ``paths`` and write the artifacts (also for failed or interrupted jobs).

    ``context.local_judge`` is taken from ``target``; the options are those :func:`effective_options` gives.
    """
    options = effective_options(options, target)
    context = dataclasses.replace(context, local_judge=target.local)
    telemetry = JudgeTelemetry(
        meter_provider, prefix="atif", job_id=context.job_id, scoring_mode=criteria.scoring_mode.value
    )
    outline = [await asyncio.to_thread(read_collection, paths, options.load_options())]  # bad input: before the judge
    if context.spool_dir is None:
        context = dataclasses.replace(context, spool_dir=_spool_dir(out_dir))
    if out_dir is None:
        async with open_judge(target, options, cache_path=cache_path, telemetry=telemetry) as judge:
            return await score_collection(outline.pop(), options, criteria, judge, context), {}
    kept = KeptSections(context.spool_dir)  # the report's step list, rendered while other roots are scored
    context = dataclasses.replace(context, on_root=chained_on_root(context.on_root, kept.add))
    try:
        async with open_judge(target, options, cache_path=cache_path, telemetry=telemetry) as judge:
            results = await score_collection(outline.pop(), options, criteria, judge, context)  # freed once scored
        return results, write_artifacts(results, out_dir, sections=kept)
    finally:
        kept.close()


def chained_on_root(first: Callable[[int, Sequence[NodeResult]], None] | None,
                    then: Callable[[int, Sequence[NodeResult]], None]) -> Callable[[int, Sequence[NodeResult]], None]:
    """``then``, after ``first`` when there is one."""
    if first is None:
        return then

    def both(index: int, nodes: Sequence[NodeResult]) -> None:
        first(index, nodes)
        then(index, nodes)

    return both


def _spool_dir(out_dir: Path | RunFolder | None) -> Path | None:
    """The run folder when it exists already (the spool then shares its disk), else None."""
    path = out_dir.path if isinstance(out_dir, RunFolder) else out_dir
    return path if path is not None and path.is_dir() else None


class JobOutcome(StrEnum):
    """How a judge job ended, as its caller's verdict: ``tracegrade judge`` gives each its exit code."""

    PASSED = "passed"
    """Every root scored (or a failed root skipped by the policy, see below), at or above ``fail_under``."""
    ROOTS_FAILED = "roots_failed"
    """``skip_failed_trajectory`` scored the other roots; some failed."""
    BELOW_THRESHOLD = "below_threshold"
    """The collection score is below ``fail_under`` (or there is none)."""
    INTERRUPTED = "interrupted"
    """Ctrl-C or SIGTERM stopped the job; what finished is written."""
    INVALID_INPUT = "invalid_input"
    """The job failed, and every failed step failed because of its input (a step too large for any request)."""
    FAILED = "failed"
    """The job failed operationally (the judge unreachable, a broken protocol, the budget spent)."""


@dataclass(frozen=True)
class JudgeJob:
    """One ``tracegrade judge`` job, validated: inputs, options, the judge, and where its results go.

    Refuses (``ConfigError``) a run folder inside an input folder: the next run would read it as input.
    """

    paths: tuple[Path, ...]
    options: ScoringOptions
    criteria: CriteriaParams
    target: JudgeTarget
    output: Path
    parameters: Mapping[str, Any] = field(default_factory=dict)
    """The parameters as given; with the inputs and the judge they make the default job id."""
    job_id: str | None = None
    cache_path: Path | None = None
    shard: Shard | None = None
    fail_under: float | None = None

    def __post_init__(self) -> None:
        target = self.output.resolve()
        for path in self.paths:
            folder = path.resolve()
            if folder.is_dir() and (target == folder or folder in target.parents):
                raise ConfigError(
                    f"--output {self.output}: is inside the input folder {path}; choose a folder outside it")

    def identity(self) -> str:
        """The job id: as given, or derived from the inputs, the parameters and the judge."""
        if self.job_id is not None:
            return self.job_id
        recorded = {k: getattr(v, "value", v) for k, v in self.parameters.items()
                    if not (k == "judge_repeats" and v == 1)}
        material = {"paths": sorted(str(p.resolve()) for p in self.paths), "parameters": recorded,
                    "judge": [self.target.url, self.target.model, self.target.local,
                              *([self.target.panel.identity()] if self.target.panel else [])]}
        return job_id_for(material)


@dataclass(frozen=True, slots=True)
class JudgeRun:
    """What a judge job wrote and how it ended; ``message`` says why, for every outcome but ``PASSED``."""

    results: EvaluationResults
    artifacts: dict[str, Path]
    outcome: JobOutcome
    message: str | None


def run_judge_job(job: JudgeJob, *,
                  watch: Callable[[RunProgress], Coroutine[Any, Any, None]] | None = None) -> JudgeRun:
    """Score the job's paths into its run folder and say how it ended.

    Ctrl-C and SIGTERM stop new judge calls and keep what finished. With ``OTEL_EXPORTER_OTLP_ENDPOINT``
    (or its metrics variant) set, the judge's meters are exported there. ``watch`` runs beside the job
    with its live progress (a progress bar) and is cancelled when the job ends.
    """
    folder = open_run_folder(job.output, job.identity())
    results, artifacts = asyncio.run(_scored(job, folder, watch))
    return judged_run(job, results, artifacts)


def judged_run(job: JudgeJob, results: EvaluationResults, artifacts: dict[str, Path]) -> JudgeRun:
    """What a finished judge job wrote and how it ended (a job run another way too, as in provider batches)."""
    outcome, message = _outcome(job, results)
    return JudgeRun(results, artifacts, outcome, message)


async def _scored(
    job: JudgeJob, folder: RunFolder, watch: Callable[[RunProgress], Coroutine[Any, Any, None]] | None
) -> tuple[EvaluationResults, dict[str, Path]]:
    from opentelemetry.metrics import NoOpMeterProvider

    loop = asyncio.get_running_loop()
    progress = RunProgress()

    def attach(engine: ScoringEngine) -> None:
        for signum in STOP_SIGNALS:  # both stop new calls and keep what finished
            loop.add_signal_handler(signum, engine.interrupt)

    watching = asyncio.create_task(watch(progress)) if watch is not None else None
    meters = otlp_meter_provider()
    try:
        context = JobContext(folder.job_id, shard=job.shard, progress=progress, on_engine=attach)
        return await run_atif_job(
            job.paths, job.options, job.criteria, job.target, context, out_dir=folder, cache_path=job.cache_path,
            meter_provider=meters if meters is not None else NoOpMeterProvider(),
        )
    finally:
        if watching is not None:
            watching.cancel()
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
        if meters is not None:
            meters.shutdown()


_OTLP_ENDPOINTS = ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def otlp_meter_provider() -> SdkMeterProvider | None:
    """The judge's meters exported over OTLP/HTTP when an endpoint is set; None (measurements dropped) otherwise."""
    if not any(os.environ.get(name, "").strip() for name in _OTLP_ENDPOINTS):
        return None
    from tracegrade.judge import configure_meter_provider

    return configure_meter_provider()


_INPUT_STEP_CODES = frozenset({"context_overflow"})
"""Step failures caused by the input itself (a step too large for any judge request), not by the judge."""

_UNREACHABLE = {
    "transport_error": "the connection was refused, reset or cut",
    "dns_error": "its host name does not resolve",
    "timeout": "no answer within --judge-timeout-seconds",
    "tls_error": "its TLS certificate is not trusted",
}
"""Step codes that mean the judge was not reached, and what each means."""


def _outcome(job: JudgeJob, results: EvaluationResults) -> tuple[JobOutcome, str | None]:
    summary = results.summary
    if summary.job_status is JobStatus.INTERRUPTED:
        return JobOutcome.INTERRUPTED, _kept(results, job)
    if summary.job_status is JobStatus.FAILED:
        unreachable = _unreachable(results, job.target.url)
        codes = {step.error_code for node in results.nodes for step in node.steps if step.error_code is not None}
        input_only = bool(codes) and codes <= _INPUT_STEP_CODES
        return (JobOutcome.INVALID_INPUT if input_only else JobOutcome.FAILED), unreachable
    failed_roots = summary.counts.get("roots_failed", 0)
    if failed_roots:
        return JobOutcome.ROOTS_FAILED, (
            f"{failed_roots} of {summary.counts.get('roots', 0)} root trajectories failed "
            "(--partial-result-policy skip_failed_trajectory scored the others; see summary.json counts)"
        )
    score, fail_under = summary.atif_overall_score, job.fail_under
    if fail_under is not None and (score is None or score < fail_under):
        shown = "— (no step was scored)" if score is None else _below(score, fail_under)
        return JobOutcome.BELOW_THRESHOLD, f"collection score {shown}"
    return JobOutcome.PASSED, None


def _below(score: float, bound: float) -> str:
    """``SCORE is below --fail-under BOUND``, the score rounded as in the table (4 places) unless that hides the gap."""
    for places in range(4, 13):
        shown, limit = f"{score:.{places}f}", f"{bound:.{places}f}"
        if shown != limit:
            return f"{shown} is below --fail-under {format(bound, 'g') if places == 4 else limit}"
    return f"{score!r} is below --fail-under {bound!r}"


def _kept(results: EvaluationResults, job: JudgeJob) -> str:
    """What an interrupted judge job kept, and how a rerun goes on."""
    counts = results.summary.counts
    scored = counts.get("steps_scored", 0)
    total = scored + counts.get("steps_failed", 0) + counts.get("steps_not_run", 0)
    rerun = ("the same command again resumes from the judge cache" if job.cache_path is not None
             else "a rerun pays every judge call again (--no-cache)")
    return f"kept {scored} of {total} steps scored in {job.output}/ (job status interrupted); {rerun}"


def _unreachable(results: EvaluationResults, judge_url: str | None) -> str | None:
    """The judge (without credentials) and the error, when no judge call got through; else None."""
    if judge_url is None or results.summary.judge.get("successes"):
        return None  # before walking the records (read back from the spool)
    found = [code for node in results.nodes for code in (node.error_code, *(s.error_code for s in node.steps))]
    codes = {code for code in found if code is not None}
    if not codes or not codes <= _UNREACHABLE.keys():
        return None
    from tracegrade.judge import redact_url

    reasons = "; ".join(f"{code}: {_UNREACHABLE[code]}" for code in sorted(codes))
    return f"judge {redact_url(judge_url)} unreachable ({reasons})"
