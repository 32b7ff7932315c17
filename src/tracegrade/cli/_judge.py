"""``tracegrade judge``: score ATIF trajectories with an LLM judge and write a run folder."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from tracegrade.errors import ConfigError, ExitCode, ThresholdNotMetError
from tracegrade.judge import ResponseFormat, configure_meter_provider, default_cache_path
from tracegrade.rubrics import CriteriaParams
from tracegrade.runner import JudgeTarget, run_atif_job
from tracegrade.scoring import (
    EvaluationResults,
    RunProgress,
    ScoringEngine,
    ScoringOptions,
    parse_parameters,
    parse_shard,
)

__all__ = ["judge"]

_JUDGE = "Judge"
_SCORING = "Scoring"
_LIMITS = "Limits"
_OUTPUT = "Output"


def judge(
    paths: Annotated[list[Path], typer.Argument(help="ATIF files or directories.")],
    judge_kind: Annotated[
        str | None,
        typer.Option(
            "--judge", help="'local' for the embedded llama.cpp + Gemma 3 270M judge.", rich_help_panel=_JUDGE
        ),
    ] = None,
    judge_url: Annotated[str | None, typer.Option(help="OpenAI-compatible base URL.", rich_help_panel=_JUDGE)] = None,
    judge_model: Annotated[str | None, typer.Option(help="Judge model name.", rich_help_panel=_JUDGE)] = None,
    judge_api_key_env: Annotated[
        str | None,
        typer.Option(help="Name of the env var holding the API key (never the key).", rich_help_panel=_JUDGE),
    ] = None,
    judge_response_format: Annotated[
        ResponseFormat, typer.Option(help="JSON-schema constrained output.", rich_help_panel=_JUDGE)
    ] = ResponseFormat.AUTO,
    judge_temperature: Annotated[float, typer.Option(rich_help_panel=_JUDGE)] = 0.0,
    judge_max_tokens: Annotated[int, typer.Option(rich_help_panel=_JUDGE)] = 1024,
    judge_seed: Annotated[int | None, typer.Option(rich_help_panel=_JUDGE)] = None,
    concurrency_limit: Annotated[int, typer.Option(help="Judge calls in flight.", rich_help_panel=_JUDGE)] = 10,
    judge_timeout_seconds: Annotated[float, typer.Option(rich_help_panel=_JUDGE)] = 30.0,
    judge_max_attempts: Annotated[int, typer.Option(help="1-10, retries included.", rich_help_panel=_JUDGE)] = 3,
    judge_initial_backoff_seconds: Annotated[float, typer.Option(rich_help_panel=_JUDGE)] = 0.5,
    max_judge_requests: Annotated[
        int | None, typer.Option(help="Global budget of HTTP attempts.", rich_help_panel=_JUDGE)
    ] = None,
    max_context_bytes: Annotated[int, typer.Option(help="Byte budget per request.", rich_help_panel=_JUDGE)] = 65536,
    scoring_mode: Annotated[
        str, typer.Option(help="auto | benchmark | reference | custom.", rich_help_panel=_SCORING)
    ] = "auto",
    benchmark_name: Annotated[str | None, typer.Option(rich_help_panel=_SCORING)] = None,
    reference_registry_path: Annotated[Path | None, typer.Option(rich_help_panel=_SCORING)] = None,
    reference_rubric: Annotated[str | None, typer.Option(rich_help_panel=_SCORING)] = None,
    rubric: Annotated[
        str | None,
        typer.Option(help="Custom rubric as YAML/JSON text (provider_params.rubric).", rich_help_panel=_SCORING),
    ] = None,
    custom_rubric: Annotated[str | None, typer.Option(help="Legacy: rubric text.", rich_help_panel=_SCORING)] = None,
    custom_rubric_path: Annotated[
        Path | None, typer.Option(help="Legacy: rubric file.", rich_help_panel=_SCORING)
    ] = None,
    completion_threshold: Annotated[float, typer.Option(rich_help_panel=_SCORING)] = 0.5,
    failure_threshold: Annotated[float, typer.Option(rich_help_panel=_SCORING)] = 0.5,
    subagent_aggregation: Annotated[
        str, typer.Option(help="flat | hierarchical | separate.", rich_help_panel=_SCORING)
    ] = "flat",
    partial_result_policy: Annotated[
        str, typer.Option(help="fail_fast | skip_failed_trajectory.", rich_help_panel=_SCORING)
    ] = "fail_fast",
    max_subagent_depth: Annotated[int, typer.Option(rich_help_panel=_LIMITS)] = 3,
    max_total_steps: Annotated[int, typer.Option(rich_help_panel=_LIMITS)] = 10_000,
    max_file_bytes: Annotated[int, typer.Option(rich_help_panel=_LIMITS)] = 10 * 1024 * 1024,
    max_trajectory_files: Annotated[int, typer.Option(rich_help_panel=_LIMITS)] = 10_000,
    max_steps_per_trajectory: Annotated[int, typer.Option(rich_help_panel=_LIMITS)] = 500,
    num_examples: Annotated[
        int | None, typer.Option(help="Score only the first N roots.", rich_help_panel=_LIMITS)
    ] = None,
    tolerant: Annotated[
        bool, typer.Option("--tolerant", help="Record invalid input files and go on.", rich_help_panel=_LIMITS)
    ] = False,
    output: Annotated[Path, typer.Option("--output", "-o", help="Run folder.", rich_help_panel=_OUTPUT)] = Path(
        "tracegrade-run"
    ),
    job_id: Annotated[str | None, typer.Option(help="Job id (default: a new one).", rich_help_panel=_OUTPUT)] = None,
    cache: Annotated[Path | None, typer.Option(help="Judge cache file.", rich_help_panel=_OUTPUT)] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the cache.", rich_help_panel=_OUTPUT)
    ] = False,
    shard: Annotated[str | None, typer.Option(help="Score shard i/n of the roots.", rich_help_panel=_OUTPUT)] = None,
    fail_under: Annotated[
        float | None, typer.Option(help="Exit 1 when the collection score is below this.", rich_help_panel=_OUTPUT)
    ] = None,
    mlflow: Annotated[
        bool, typer.Option("--mlflow", help="Also log the run to MLflow.", rich_help_panel=_OUTPUT)
    ] = False,
    mlflow_uri: Annotated[
        str | None,
        typer.Option(
            help="Tracking URI (default: $MLFLOW_TRACKING_URI, else sqlite:///./mlruns.db).", rich_help_panel=_OUTPUT
        ),
    ] = None,
    mlflow_experiment: Annotated[str, typer.Option(rich_help_panel=_OUTPUT)] = "tracegrade",
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress or summary.", rich_help_panel=_OUTPUT)
    ] = False,
) -> None:
    """Score every step of ATIF trajectories with an LLM judge and write a run folder.

    The run folder holds evaluation_results.json, summary.json, steps.parquet and report.html. Ctrl-C stops
    cleanly: finished results are written, and rerunning the same command resumes from the judge cache.
    """
    parameters: dict[str, Any] = {
        "trajectory_path": os.pathsep.join(str(p) for p in paths),
        "scoring_mode": scoring_mode,
        "benchmark_name": benchmark_name,
        "reference_registry_path": str(reference_registry_path) if reference_registry_path else None,
        "reference_rubric": reference_rubric,
        "provider_params": {"rubric": rubric} if rubric is not None else None,
        "custom_rubric": custom_rubric,
        "custom_rubric_path": str(custom_rubric_path) if custom_rubric_path else None,
        "completion_threshold": completion_threshold,
        "failure_threshold": failure_threshold,
        "subagent_aggregation": subagent_aggregation,
        "partial_result_policy": partial_result_policy,
        "max_subagent_depth": max_subagent_depth,
        "max_total_steps": max_total_steps,
        "max_file_bytes": max_file_bytes,
        "max_trajectory_files": max_trajectory_files,
        "max_steps_per_trajectory": max_steps_per_trajectory,
        "num_examples": num_examples,
        "tolerant_inputs": tolerant,
        "concurrency_limit": concurrency_limit,
        "judge_timeout_seconds": judge_timeout_seconds,
        "judge_max_attempts": judge_max_attempts,
        "judge_initial_backoff_seconds": judge_initial_backoff_seconds,
        "max_judge_requests": max_judge_requests,
        "max_context_bytes": max_context_bytes,
        "judge_temperature": judge_temperature,
        "judge_max_tokens": judge_max_tokens,
        "judge_seed": judge_seed,
    }
    options, criteria = parse_parameters(parameters)
    target = _target(judge_kind, judge_url, judge_model, judge_api_key_env, judge_response_format)
    console = Console(stderr=True)
    progress = RunProgress()
    results, artifacts = asyncio.run(
        _run(
            paths,
            options,
            criteria,
            target,
            progress,
            console,
            quiet,
            job_id=job_id or _default_job_id(paths, parameters, target),
            out_dir=output,
            cache_path=None if no_cache else (cache or default_cache_path()),
            shard=parse_shard(shard) if shard else None,
        )
    )
    if not quiet:
        _print_summary(results, output)
    if mlflow:
        from tracegrade.integrations.mlflow import log_run

        run_id = log_run(results, artifacts, tracking_uri=mlflow_uri, experiment=mlflow_experiment)
        if not quiet:
            Console().print(f"MLflow run: {run_id}", markup=False)
    _exit(results, fail_under)


def _default_job_id(paths: list[Path], parameters: dict[str, Any], target: JudgeTarget) -> str:
    """The same inputs, parameters and judge give the same job id (so shards of one job agree)."""
    material = {
        "paths": sorted(str(p.resolve()) for p in paths),
        "parameters": parameters,
        "judge": [target.url, target.model, target.local],
    }
    return "tg-" + hashlib.sha256(orjson.dumps(material, option=orjson.OPT_SORT_KEYS)).hexdigest()[:12]


def _target(
    kind: str | None, url: str | None, model: str | None, key_env: str | None, response_format: ResponseFormat
) -> JudgeTarget:
    if kind is not None:
        if kind != "local":
            raise ConfigError(f"--judge: only 'local' is accepted, got {kind!r} (use --judge-url for endpoints)")
        if url or model:
            raise ConfigError("--judge local cannot be combined with --judge-url/--judge-model")
        return JudgeTarget(local=True)
    if not url or not model:
        raise ConfigError("judge: give --judge-url and --judge-model, or --judge local")
    return JudgeTarget(url=url, model=model, api_key_env=key_env, response_format=response_format)


async def _run(
    paths: list[Path],
    options: ScoringOptions,
    criteria: CriteriaParams,
    target: JudgeTarget,
    progress: RunProgress,
    console: Console,
    quiet: bool,
    **kwargs: Any,
) -> tuple[EvaluationResults, dict[str, Path]]:
    loop = asyncio.get_running_loop()

    def attach(engine: ScoringEngine) -> None:
        loop.add_signal_handler(signal.SIGINT, engine.interrupt)

    display = asyncio.create_task(_show_progress(progress, console, quiet))
    meters = configure_meter_provider()  # exports over OTLP/HTTP only when OTEL_EXPORTER_OTLP_*ENDPOINT is set
    try:
        results, artifacts = await run_atif_job(
            paths, options, criteria, target, progress=progress, on_engine=attach, meter_provider=meters, **kwargs
        )
    finally:
        display.cancel()
        loop.remove_signal_handler(signal.SIGINT)
        meters.shutdown()
    return results, artifacts


async def _show_progress(progress: RunProgress, console: Console, quiet: bool) -> None:
    if quiet or not console.is_terminal:
        return
    columns = (
        TextColumn("scoring"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} steps"),
        TextColumn("errors {task.fields[errors]}"),
        TextColumn("in flight {task.fields[in_flight]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("scoring", total=None, errors=0, in_flight=0)
        while True:
            bar.update(
                task,
                total=progress.steps_total or None,
                completed=progress.steps_done,
                errors=progress.step_errors,
                in_flight=progress.in_flight,
            )
            await asyncio.sleep(0.2)


def _print_summary(results: EvaluationResults, output: Path) -> None:
    summary = results.summary
    console = Console()
    table = Table(title=f"tracegrade judge — {results.job_id}", show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    score = summary.atif_overall_score
    table.add_row("atif_overall_score", "—" if score is None else f"{score:.4f}")
    table.add_row("atif_trajectory_count", str(summary.atif_trajectory_count))
    rate = summary.atif_failure_categorization_rate
    table.add_row("atif_failure_categorization_rate (validity proxy)", "—" if rate is None else f"{rate:.4f}")
    table.add_row("subagent_aggregation", summary.subagent_aggregation)
    table.add_row("atif_complete", str(summary.atif_complete).lower())
    table.add_row("job_status", summary.job_status + (f" ({summary.failure_reason})" if summary.failure_reason else ""))
    for key in ("steps_scored", "steps_failed", "steps_not_run", "failure_candidates", "invalid_inputs"):
        if summary.counts.get(key):
            table.add_row(key, str(summary.counts[key]))
    table.add_row(
        "judge requests / cache hits", f"{summary.judge.get('requests', 0)} / {summary.judge.get('cache_hits', 0)}"
    )
    console.print(table)
    console.print(
        f"results: {output}/ (evaluation_results.json, summary.json, steps.parquet, report.html)", markup=False
    )


def _exit(results: EvaluationResults, fail_under: float | None) -> None:
    status = results.summary.job_status
    if status == "interrupted":
        raise KeyboardInterrupt
    if status == "failed":
        raise typer.Exit(int(ExitCode.OPERATIONAL))
    score = results.summary.atif_overall_score
    if fail_under is not None and (score is None or score < fail_under):
        raise ThresholdNotMetError(f"collection score {score} is below --fail-under {fail_under}")
