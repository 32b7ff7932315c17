"""``tracegrade judge``: score ATIF trajectories with an LLM judge and write a run folder."""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from tracegrade.atif import CriteriaInputs, ScoringOptions
from tracegrade.cli._options import OptionGroup, Overwrite, with_model_options, without_defaulted
from tracegrade.errors import ConfigError, ExitCode, Interrupted, ThresholdNotMetError
from tracegrade.judge import JudgeOptions, ResponseFormat
from tracegrade.runs import JobStatus

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics import MeterProvider as SdkMeterProvider

    from tracegrade.atif import EvaluationResults, JudgeTarget, RunProgress
    from tracegrade.runs import RunFolder, Shard

__all__ = ["judge"]

_JUDGE = "Judge"
_SCORING = "Scoring"
_LIMITS = "Limits"
_OUTPUT = "Output"
_LOCAL_RUBRIC = "local_judge_generic_rubric"
"""``atif_criteria_source`` of a local-judge run in auto mode (tracegrade.atif.criteria._local)."""
_LIMIT_FIELDS = (
    "max_subagent_depth", "max_total_steps", "max_file_bytes", "max_trajectory_files", "max_steps_per_trajectory",
    "num_examples", "tolerant_inputs",
)
_JUDGE_FIELDS = (*JudgeOptions.model_fields, "judge_repeats")

# The judge endpoint's options, shared by every command that calls the judge.
JudgeKind = Annotated[str | None, typer.Option(
    "--judge", help="'local' for the embedded llama.cpp + Gemma 3 270M judge.", rich_help_panel=_JUDGE)]
JudgeUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible base URL.", rich_help_panel=_JUDGE)]
JudgeModel = Annotated[str | None, typer.Option(help="Judge model name.", rich_help_panel=_JUDGE)]
JudgeKeyEnv = Annotated[str | None, typer.Option(help="Name of the env var holding the API key (never the key).",
                                                 rich_help_panel=_JUDGE)]
JudgeResponseFormat = Annotated[ResponseFormat, typer.Option(help="JSON-schema constrained output.",
                                                             rich_help_panel=_JUDGE)]


@with_model_options(
    OptionGroup(ScoringOptions, _JUDGE, only=_JUDGE_FIELDS),
    OptionGroup(CriteriaInputs, _SCORING, exclude=("provider_params",)),
    OptionGroup(ScoringOptions, _SCORING, exclude=("trajectory_path", *_LIMIT_FIELDS, *_JUDGE_FIELDS)),
    OptionGroup(ScoringOptions, _LIMITS, only=_LIMIT_FIELDS, flags={"tolerant_inputs": "--tolerant"}),
)
def judge(
    paths: Annotated[list[Path], typer.Argument(help="ATIF files or directories.")],
    judge_kind: JudgeKind = None,
    judge_url: JudgeUrl = None,
    judge_model: JudgeModel = None,
    judge_api_key_env: JudgeKeyEnv = None,
    judge_response_format: JudgeResponseFormat = ResponseFormat.AUTO,
    rubric: Annotated[
        str | None,
        typer.Option(help="Custom rubric as YAML/JSON text (provider_params.rubric).", rich_help_panel=_SCORING),
    ] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="Run folder.", rich_help_panel=_OUTPUT)] = Path(
        "tracegrade-run"
    ),
    job_id: Annotated[
        str | None, typer.Option(help="Job id (default: derived from inputs, parameters and judge).",
                                 rich_help_panel=_OUTPUT)
    ] = None,
    cache: Annotated[Path | None, typer.Option(help="Judge cache file.", rich_help_panel=_OUTPUT)] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the cache.", rich_help_panel=_OUTPUT)
    ] = False,
    shard: Annotated[str | None, typer.Option(
        help="Score shard i of n of the roots, counted from 0: 0/4, 1/4, 2/4 and 3/4 together score everything.",
        rich_help_panel=_OUTPUT)] = None,
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
    mlflow_experiment: Annotated[
        str, typer.Option(help="MLflow experiment the run is logged under.", rich_help_panel=_OUTPUT)
    ] = "tracegrade",
    otel_evaluations: Annotated[
        bool,
        typer.Option("--otel-evaluations", help="Also send each verdict as an OpenTelemetry gen_ai.evaluation.result "
                     "event (to $OTEL_EXPORTER_OTLP_ENDPOINT).", rich_help_panel=_OUTPUT),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress or summary.", rich_help_panel=_OUTPUT)
    ] = False,
    overwrite: Overwrite = False,
    *,
    parameters: dict[str, Any],
    defaulted: frozenset[str] = frozenset(),
) -> None:
    """Score every step of ATIF trajectories with an LLM judge and write a run folder.

    The run folder holds evaluation_results.json, summary.json, steps.parquet, report.html and, written last,
    manifest.json. Ctrl-C or SIGTERM stops cleanly: finished results are written, and rerunning the same command
    resumes from the judge cache.
    """
    import asyncio

    from tracegrade.atif import open_run_folder, parse_parameters
    from tracegrade.judge import default_cache_path
    from tracegrade.runs import claim_output, job_id_for, parse_shard

    parameters["trajectory_path"] = os.pathsep.join(str(p) for p in paths)
    if rubric is not None:
        parameters["provider_params"] = {"rubric": rubric}
    options, criteria = parse_parameters(without_defaulted(parameters, defaulted))  # defaults: the judge kind's
    selected = parse_shard(shard) if shard else None
    target = _target(judge_kind, judge_url, judge_model, judge_api_key_env, judge_response_format)
    _refuse_output_inside_inputs(output, paths)
    if otel_evaluations:
        _require_logs_endpoint()
    recorded = {k: v for k, v in parameters.items() if not (k == "judge_repeats" and v == 1)}  # as before repeats
    material = {"paths": sorted(str(p.resolve()) for p in paths), "parameters": _jsonable(recorded),
                "judge": [target.url, target.model, target.local]}
    job = job_id or job_id_for(material)
    claim_output(output, kind="atif-judge", job_id=job, overwrite=overwrite)  # its own run: a resume
    if overwrite:
        _note_replaced_run(output, job)
    folder = open_run_folder(output, job)
    cache_path = None if no_cache else (cache or default_cache_path())
    results, artifacts = asyncio.run(
        _run(paths, options, criteria, target, quiet, folder=folder, cache_path=cache_path, shard=selected)
    )
    if not quiet:
        _print_summary(results, output)
    if mlflow:
        from tracegrade.integrations.mlflow import log_run

        run_id = log_run(results, artifacts, tracking_uri=mlflow_uri, experiment=mlflow_experiment)
        if not quiet:
            Console(highlight=False).print(f"MLflow run: {run_id}", markup=False)
    if otel_evaluations:
        from tracegrade.integrations.otel import export_evaluations

        sent = export_evaluations(results)
        if not quiet:
            Console(highlight=False).print(f"OpenTelemetry: sent {sent} evaluation events", markup=False)
    if results.summary.job_status is JobStatus.INTERRUPTED:
        raise Interrupted(_kept(results, output, cache_path))
    _exit(results, fail_under, target.url)


def _kept(results: EvaluationResults, output: Path, cache_path: Path | None) -> str:
    """What an interrupted judge run kept, and how a rerun goes on."""
    counts = results.summary.counts
    scored = counts.get("steps_scored", 0)
    total = scored + counts.get("steps_failed", 0) + counts.get("steps_not_run", 0)
    rerun = ("the same command again resumes from the judge cache" if cache_path is not None
             else "a rerun pays every judge call again (--no-cache)")
    return f"kept {scored} of {total} steps scored in {output}/ (job status interrupted); {rerun}"


def _note_replaced_run(output: Path, job_id: str) -> None:
    """Say so when ``output`` holds the finished run of another job, which this run replaces."""
    from tracegrade.errors import TracegradeError
    from tracegrade.runs import read_manifest

    try:
        previous = read_manifest(output, verify=False).get("job_id")
    except TracegradeError:
        return
    if previous is not None and previous != job_id:
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            f"note: {output}/ holds the run of job {previous}; this run (job {job_id}) replaces it "
            "(give -o DIR to keep both)", markup=False)


def _require_logs_endpoint() -> None:
    """--otel-evaluations without an endpoint is refused before any judge call is paid."""
    from tracegrade.integrations.otel import logs_endpoint

    if logs_endpoint() is None:
        raise ConfigError("--otel-evaluations: set OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_LOGS_ENDPOINT)")


def _jsonable(parameters: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.value if hasattr(v, "value") else v) for k, v in parameters.items()}


def _refuse_output_inside_inputs(output: Path, paths: list[Path]) -> None:
    """A run folder inside an input folder would be read as trajectories by the next run."""
    target = output.resolve()
    for path in paths:
        folder = path.resolve()
        if folder.is_dir() and (target == folder or folder in target.parents):
            raise ConfigError(f"--output {output}: is inside the input folder {path}; choose a folder outside it")


def _target(
    kind: str | None, url: str | None, model: str | None, key_env: str | None, response_format: ResponseFormat
) -> JudgeTarget:
    from tracegrade.atif import JudgeTarget

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
    paths: list[Path], options: Any, criteria: Any, target: JudgeTarget, quiet: bool, *, folder: RunFolder,
    cache_path: Path | None, shard: Shard | None,
) -> tuple[EvaluationResults, dict[str, Path]]:
    import asyncio

    from opentelemetry.metrics import NoOpMeterProvider

    from tracegrade.atif import JobContext, RunProgress, ScoringEngine, run_atif_job

    loop = asyncio.get_running_loop()
    progress = RunProgress()

    def attach(engine: ScoringEngine) -> None:
        for signum in (signal.SIGINT, signal.SIGTERM):  # both stop new calls and keep what finished
            loop.add_signal_handler(signum, engine.interrupt)

    display = asyncio.create_task(_show_progress(progress, Console(stderr=True, highlight=False), quiet))
    meters = _meter_provider()
    try:
        context = JobContext(folder.job_id, shard=shard, progress=progress, on_engine=attach)
        return await run_atif_job(
            paths, options, criteria, target, context, out_dir=folder, cache_path=cache_path,
            meter_provider=meters if meters is not None else NoOpMeterProvider(),
        )
    finally:
        display.cancel()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        if meters is not None:
            meters.shutdown()


_OTLP_ENDPOINTS = ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def _meter_provider() -> SdkMeterProvider | None:
    """The OTLP/HTTP exporting provider when an endpoint is set; None (measurements dropped) otherwise.

    Without an endpoint the SDK provider would have no reader; skipping it spares a small run the
    OpenTelemetry SDK's import and set-up.
    """
    if not any(os.environ.get(name, "").strip() for name in _OTLP_ENDPOINTS):
        return None
    from tracegrade.judge import configure_meter_provider

    return configure_meter_provider()


async def _show_progress(progress: RunProgress, console: Console, quiet: bool) -> None:
    if quiet or not console.is_terminal:
        return
    import asyncio

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (
        TextColumn("scoring"),
        BarColumn(),
        TextColumn("{task.fields[count]}"),
        TextColumn("errors {task.fields[errors]}"),
        TextColumn("in flight {task.fields[in_flight]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    from tracegrade.runs import drawing

    with Progress(*columns, console=console, transient=True) as bar, drawing(console):
        task = bar.add_task("scoring", total=None, errors=0, in_flight=0, count="starting")
        while True:
            total = progress.steps_total
            bar.update(
                task,
                total=total or None,
                completed=progress.steps_done,
                count=f"{progress.steps_done}/{total} steps" if total else "starting",
                errors=progress.step_errors,
                in_flight=progress.in_flight,
            )
            await asyncio.sleep(0.2)


def _print_summary(results: EvaluationResults, output: Path) -> None:
    from rich.table import Table
    from rich.text import Text

    from tracegrade.render import terminal_safe

    summary = results.summary
    table = Table(title=Text(terminal_safe(f"tracegrade judge — {results.job_id}"), style="table.title"),
                  show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    score = summary.atif_overall_score
    table.add_row("atif_overall_score", "—" if score is None else f"{score:.4f}")
    table.add_row("atif_trajectory_count", str(summary.atif_trajectory_count))
    rate = summary.atif_failure_categorization_rate
    table.add_row("atif_failure_categorization_rate (validity proxy)", "—" if rate is None else f"{rate:.4f}")
    table.add_row("subagent_aggregation", summary.subagent_aggregation)
    table.add_row("criteria", Text(terminal_safe(results.parameters.atif_criteria_source)))
    table.add_row("atif_complete", str(summary.atif_complete).lower())
    table.add_row("job_status", str(summary.job_status))
    for key in ("steps_scored", "steps_failed", "steps_not_run", "failure_candidates", "invalid_inputs"):
        if summary.counts.get(key):
            table.add_row(key, str(summary.counts[key]))
    table.add_row(
        "judge requests / cache hits", f"{summary.judge.get('requests', 0)} / {summary.judge.get('cache_hits', 0)}"
    )
    table.add_row("judge tokens in / out", tokens_line(summary.judge))
    Console(highlight=False).print(table)
    if summary.failure_reason:  # a line of its own: a table cell would cut it at the terminal's width
        Console(highlight=False).print(f"job {summary.job_status}: {terminal_safe(summary.failure_reason)}",
                                       markup=False, soft_wrap=True)
    if results.parameters.atif_criteria_source == _LOCAL_RUBRIC:
        Console(highlight=False).print(
            "The local judge cannot derive criteria: every step was scored against one fixed generic criterion "
            "(step_quality), as the probability it gives 'no problem' against five named problems, read from its "
            "token probabilities. Its scores are weak; see the README.",
            markup=False,
        )
    refused = [record for record in results.inputs if record.status == "invalid"]
    if refused:
        from tracegrade.atif import LISTED_PROBLEMS

        lines = [f"refused {len(refused)} of {len(results.inputs)} inputs as invalid (--tolerant scored the rest):",
                 *(f"  {record.message or f'{record.path}: {record.code}'}" for record in refused[:LISTED_PROBLEMS])]
        if len(refused) > LISTED_PROBLEMS:
            lines.append(f"  ... and {len(refused) - LISTED_PROBLEMS} more (every input's account: "
                         "evaluation_results.json)")
        Console(highlight=False).print(terminal_safe("\n".join(lines), lines=True), markup=False)
    Console(highlight=False).print(
        f"results: {output}/ (evaluation_results.json, summary.json, steps.parquet, report.html, manifest.json)",
        markup=False,
    )


def tokens_line(judge: Mapping[str, Any]) -> str:
    """``IN / OUT`` tokens spent by this run, and what the answers taken from the cache cost when bought."""
    spent = f"{judge.get('input_tokens', 0):,} / {judge.get('output_tokens', 0):,}"
    cached_in, cached_out = judge.get("cached_input_tokens", 0), judge.get("cached_output_tokens", 0)
    return spent + (f" (+ cached {cached_in:,} / {cached_out:,})" if cached_in or cached_out else "")


def _exit(results: EvaluationResults, fail_under: float | None, judge_url: str | None) -> None:
    summary = results.summary
    status = summary.job_status
    if status is JobStatus.FAILED:
        _report_unreachable_judge(results, judge_url)
        raise typer.Exit(int(_failed_exit_code(results)))
    failed_roots = summary.counts.get("roots_failed", 0)
    if failed_roots:
        raise ThresholdNotMetError(
            f"{failed_roots} of {summary.counts.get('roots', 0)} root trajectories failed "
            "(--partial-result-policy skip_failed_trajectory scored the others; see summary.json counts)"
        )
    score = summary.atif_overall_score
    if fail_under is not None and (score is None or score < fail_under):
        shown = "— (no step was scored)" if score is None else _below(score, fail_under)
        raise ThresholdNotMetError(f"collection score {shown}")


def _below(score: float, bound: float) -> str:
    """``SCORE is below --fail-under BOUND``, the score rounded as in the table (4 places) unless that hides the gap."""
    for places in range(4, 13):
        shown, limit = f"{score:.{places}f}", f"{bound:.{places}f}"
        if shown != limit:
            return f"{shown} is below --fail-under {format(bound, 'g') if places == 4 else limit}"
    return f"{score!r} is below --fail-under {bound!r}"


_INPUT_STEP_CODES = frozenset({"context_overflow"})
"""Step failures caused by the input itself (a step too large for any judge request), not by the judge."""


_UNREACHABLE = {
    "transport_error": "the connection was refused, reset or cut",
    "dns_error": "its host name does not resolve",
    "timeout": "no answer within --judge-timeout-seconds",
    "tls_error": "its TLS certificate is not trusted",
}
"""Step codes that mean the judge was not reached, and what each means."""


def _report_unreachable_judge(results: EvaluationResults, judge_url: str | None) -> None:
    """One line naming the judge (without credentials) and the error, when no judge call got through."""
    if judge_url is None or results.summary.judge.get("successes"):
        return  # before walking the records (read back from the spool)
    found = [code for node in results.nodes for code in (node.error_code, *(s.error_code for s in node.steps))]
    codes = {code for code in found if code is not None}
    if not codes or not codes <= _UNREACHABLE.keys():
        return
    from tracegrade.judge import redact_url

    reasons = "; ".join(f"{code}: {_UNREACHABLE[code]}" for code in sorted(codes))
    Console(stderr=True).print(f"error: judge {redact_url(judge_url)} unreachable ({reasons})", markup=False,
                               soft_wrap=True)


def _failed_exit_code(results: EvaluationResults) -> ExitCode:
    """Exit 2 when every failed step failed because of its input (e.g. an 8 MB step), else 4."""
    codes = {step.error_code for node in results.nodes for step in node.steps if step.error_code is not None}
    return ExitCode.INVALID_INPUT if codes and codes <= _INPUT_STEP_CODES else ExitCode.OPERATIONAL
