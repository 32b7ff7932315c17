"""``tracegrade judge``: score ATIF trajectories with an LLM judge and write a run folder.

``tracegrade merge``, which combines the shards of one judge job into one run folder, is here too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from tracegrade.atif import CriteriaInputs, ScoringOptions
from tracegrade.cli._judge_modes import batch_options, cancel_recorded, prices_from, run_batch
from tracegrade.cli._judge_modes import dry_run as cli_dry_run
from tracegrade.cli._options import EndpointOptions, OptionGroup, Overwrite, with_model_options, without_defaulted
from tracegrade.errors import ConfigError, ExitCode, Interrupted, ThresholdNotMetError, outcome_exit_code
from tracegrade.judge import JudgeOptions

if TYPE_CHECKING:
    from tracegrade.atif import EvaluationResults, JudgeRun, JudgeTarget
    from tracegrade.atif.scoring import RunProgress

from tracegrade.runs import claim_output

__all__ = ["judge", "merge"]

_JUDGE = "Judge"
_SCORING = "Scoring"
_LIMITS = "Limits"
_OUTPUT = "Output"
_COST = "Cost"
_BATCH = "Batch"
_LOCAL_RUBRIC = "local_judge_generic_rubric"
"""``atif_criteria_source`` of a local-judge run in auto mode (tracegrade.atif.criteria._local)."""
_LIMIT_FIELDS = (
    "max_subagent_depth", "max_total_steps", "max_file_bytes", "max_trajectory_files", "max_steps_per_trajectory",
    "num_examples", "tolerant_inputs",
)
_JUDGE_FIELDS = (*JudgeOptions.model_fields, "judge_repeats")

class PanelChoice(StrEnum):
    """How a panel's scores combine."""

    MEAN = "mean"
    MEDIAN = "median"
    WEIGHTED_MEAN = "weighted_mean"


@with_model_options(
    OptionGroup(ScoringOptions, _JUDGE, only=_JUDGE_FIELDS),
    OptionGroup(CriteriaInputs, _SCORING, exclude=("provider_params",)),
    OptionGroup(ScoringOptions, _SCORING, exclude=("trajectory_path", *_LIMIT_FIELDS, *_JUDGE_FIELDS)),
    OptionGroup(ScoringOptions, _LIMITS, only=_LIMIT_FIELDS, flags={"tolerant_inputs": "--tolerant"}),
)
def judge(
    paths: Annotated[list[Path], typer.Argument(help="ATIF files or directories.")],
    endpoint: EndpointOptions,
    judge_panel: Annotated[Path | None, typer.Option(
        metavar="PANEL.yaml", rich_help_panel=_JUDGE,
        help="Ask a panel of judges instead of one (judges: name, url, model, api_key_env, weight, settings).")] = None,
    panel_aggregation: Annotated[PanelChoice | None, typer.Option(
        help="How the panel's scores combine (default mean, or the file's).", rich_help_panel=_JUDGE)] = None,
    panel_min_answers: Annotated[int | None, typer.Option(
        min=1, rich_help_panel=_JUDGE,
        help="Answers a step needs from the panel (default: every judge's); fewer fail the step.")] = None,
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
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Build and count every request, price it with --price-*, send nothing; writes only "
        "OUTPUT/dry_run.json.", rich_help_panel=_COST)] = False,
    price_input: Annotated[float | None, typer.Option(
        help="Price of a million input tokens (--dry-run).", rich_help_panel=_COST)] = None,
    price_cached_input: Annotated[float | None, typer.Option(
        help="Price of a million input tokens served from the provider's prompt cache (default: --price-input).",
        rich_help_panel=_COST)] = None,
    price_output: Annotated[float | None, typer.Option(
        help="Price of a million output tokens (--dry-run).", rich_help_panel=_COST)] = None,
    price_batch_factor: Annotated[float, typer.Option(
        help="Share of the online price a batch job costs (OpenAI: 0.5).", rich_help_panel=_COST)] = 0.5,
    judge_batch: Annotated[bool, typer.Option(
        "--judge-batch", help="Send the requests as provider batch jobs (OpenAI Batch API), round by round.",
        rich_help_panel=_BATCH)] = False,
    judge_batch_fallback: Annotated[str, typer.Option(
        help="'online' sends the requests a batch could not answer online; 'none' records their error.",
        rich_help_panel=_BATCH)] = "none",
    judge_batch_export: Annotated[Path | None, typer.Option(
        help="Write the round's requests as a batch input file (vllm run-batch -i) instead of sending them.",
        rich_help_panel=_BATCH)] = None,
    judge_batch_import: Annotated[list[Path] | None, typer.Option(
        help="Read a batch output file (vllm run-batch -o) into the cache before sending anything.",
        rich_help_panel=_BATCH)] = None,
    judge_batch_poll_seconds: Annotated[float, typer.Option(
        help="Seconds between looks at the batches while waiting.", rich_help_panel=_BATCH)] = 30.0,
    judge_batch_max_requests: Annotated[int, typer.Option(
        help="Most requests in one batch (OpenAI: 50,000).", rich_help_panel=_BATCH)] = 50_000,
    judge_batch_max_bytes: Annotated[int, typer.Option(
        help="Most bytes of one batch input file (OpenAI: 200 MB).", rich_help_panel=_BATCH)] = 200_000_000,
    judge_batch_window: Annotated[str, typer.Option(
        help="Completion window asked of the provider.", rich_help_panel=_BATCH)] = "24h",
    judge_batch_cancel: Annotated[bool, typer.Option(
        "--judge-batch-cancel", help="Cancel the unfinished batches recorded in OUTPUT/batch.json, then stop.",
        rich_help_panel=_BATCH)] = False,
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
    from tracegrade.atif import JudgeJob, parse_parameters, run_judge_job
    from tracegrade.judge import default_cache_path
    from tracegrade.runs import claim_output, parse_shard

    parameters["trajectory_path"] = os.pathsep.join(str(p) for p in paths)
    if rubric is not None:
        parameters["provider_params"] = {"rubric": rubric}
    options, criteria = parse_parameters(without_defaulted(parameters, defaulted))  # defaults: the judge kind's
    selected = parse_shard(shard) if shard else None
    target = _panel_target(judge_panel, panel_aggregation, panel_min_answers, endpoint.given) \
        if judge_panel is not None else endpoint.target()
    if target.panel is not None and options.judge_repeats > 1:
        raise ConfigError("--judge-panel with --judge-repeats: not supported (each step's panel record would be "
                          "lost in the mean of the repeats); ask the panel once per step")
    cache_path = None if no_cache else (cache or default_cache_path())
    job = JudgeJob(tuple(paths), options, criteria, target, output, parameters, job_id=job_id, cache_path=cache_path,
                   shard=selected, fail_under=fail_under)
    if otel_evaluations:
        _require_logs_endpoint()
    prices = prices_from(price_input, price_cached_input, price_output, price_batch_factor)
    if dry_run:
        cli_dry_run(paths, options, criteria, target, output=output, job_id=job.identity(), quiet=quiet, prices=prices,
                    cache_path=cache_path, batch=judge_batch)
        return
    if judge_batch_cancel:
        cancel_recorded(target, options, output, quiet=quiet)
        return
    batched = judge_batch or judge_batch_export is not None or bool(judge_batch_import)
    if batched:  # refused before the run folder is touched
        batch = batch_options(fallback=judge_batch_fallback, export=judge_batch_export, imports=judge_batch_import,
                              poll_seconds=judge_batch_poll_seconds, max_requests=judge_batch_max_requests,
                              max_bytes=judge_batch_max_bytes, window=judge_batch_window)
        if selected is not None or target.local or cache_path is None:
            raise ConfigError("--judge-batch: needs an endpoint (not --judge local), the judge cache (no --no-cache) "
                              "and every shard in one job (no --shard)")
    claim_output(output, kind="atif-judge", job_id=job.identity(), overwrite=overwrite)  # its own run: a resume
    if overwrite:
        _note_replaced_run(output, job.identity())
    if batched:
        from tracegrade.atif.modes import judged_run
        from tracegrade.atif.output import open_run_folder

        done = run_batch(paths, options, criteria, target, folder=open_run_folder(output, job.identity()),
                         cache_path=cache_path, batch=batch, quiet=quiet)
        if done is None:
            return
        run = judged_run(job, *done)
    else:
        run = run_judge_job(job, watch=None if quiet else _show_progress)
    if not quiet:
        _print_summary(run.results, output)
    if mlflow:
        from tracegrade.integrations.mlflow import log_run

        run_id = log_run(run.results, run.artifacts, tracking_uri=mlflow_uri, experiment=mlflow_experiment)
        if not quiet:
            Console(highlight=False).print(f"MLflow run: {run_id}", markup=False)
    if otel_evaluations:
        from tracegrade.integrations.otel import export_evaluations

        sent = export_evaluations(run.results)
        if not quiet:
            Console(highlight=False).print(f"OpenTelemetry: sent {sent} evaluation events", markup=False)
    _exit(run)


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


def _panel_target(path: Path, aggregation: PanelChoice | None, min_answers: int | None, single: object) -> JudgeTarget:
    from tracegrade.atif import JudgeTarget
    from tracegrade.judge import read_panel

    if single:
        raise ConfigError("--judge-panel cannot be combined with --judge, --judge-url or --judge-model")
    return JudgeTarget(panel=read_panel(path, aggregation=None if aggregation is None else aggregation.value,
                                        min_answers=min_answers))


async def _show_progress(progress: RunProgress) -> None:
    """A progress bar on stderr while the job runs (none when stderr is not a terminal)."""
    console = Console(stderr=True, highlight=False)
    if not console.is_terminal:
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
    if summary.judge.get("batch_requests"):
        table.add_row("requests sent in batch jobs", str(summary.judge["batch_requests"]))
    if summary.judge.get("requests") or summary.judge.get("batch_requests"):
        table.add_row("judge input tokens / cached by the provider", _tokens_row(summary.judge))
    Console(highlight=False).print(table)
    _print_refused(results)
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
        from tracegrade.atif.reading import LISTED_PROBLEMS

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


def _tokens_row(counts: dict[str, int]) -> str:
    """Input tokens and the provider's cached share; '—' for the cached count when the provider never said."""
    cached = f"{counts.get('cached_input_tokens', 0):,}" if counts.get("cached_input_reported") else "—"
    return f"{counts.get('input_tokens', 0):,} / {cached}"


_REFUSED_SHOWN = 10


def _print_refused(results: EvaluationResults) -> None:
    """Each input not scored on a line of its own, its path whole (a table cell would crowd it at 80 columns)."""
    from tracegrade.render import terminal_safe

    refused = [record for record in results.inputs if record.status != "loaded"]
    console = Console(highlight=False, soft_wrap=True)
    for record in refused[:_REFUSED_SHOWN]:
        where = f"{record.path}:{record.location.removeprefix('line ')}" if record.location else record.path
        reason = record.message or record.code or record.status
        line = reason if reason.startswith(record.path) else f"{where}: {reason}"  # a message names its file
        console.print(terminal_safe(f"{record.status}: {line}", lines=True), markup=False)
    if len(refused) > _REFUSED_SHOWN:
        console.print(f"... and {len(refused) - _REFUSED_SHOWN} more inputs not scored (listed in report.html and "
                      "evaluation_results.json)", markup=False)


def tokens_line(judge: Mapping[str, Any]) -> str:
    """``IN / OUT`` tokens spent by this run, and what the answers taken from the cache cost when bought."""
    spent = f"{judge.get('input_tokens', 0):,} / {judge.get('output_tokens', 0):,}"
    kept_in, kept_out = judge.get("cache_hit_input_tokens", 0), judge.get("cache_hit_output_tokens", 0)
    return spent + (f" (+ cached {kept_in:,} / {kept_out:,})" if kept_in or kept_out else "")


def _exit(run: JudgeRun) -> None:
    """End the command with the exit code of the job's outcome, its message on stderr."""
    from tracegrade.atif import JobOutcome

    code = outcome_exit_code(run.outcome)
    if code is ExitCode.OK:
        return
    if run.outcome is JobOutcome.INTERRUPTED:
        raise Interrupted(run.message or "")
    if code is ExitCode.THRESHOLD:
        raise ThresholdNotMetError(run.message or "")
    if run.message is not None:
        Console(stderr=True).print(f"error: {run.message}", markup=False, soft_wrap=True)
    raise typer.Exit(int(code))

def merge(
    results: Annotated[
        list[Path], typer.Argument(help="Shard run folders or their evaluation_results.json files, every shard once.")
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Run folder for the merged result.")] = Path(
        "tracegrade-merged"
    ),
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary line.")] = False,
    overwrite: Overwrite = False,
) -> None:
    """Merge the shards of one job (tracegrade judge --shard i/n) into the run an unsharded job produces.

    Shards must come from the same job (same --job-id), parameters and judge; all n must be given.
    Nodes, steps and the summary then equal an unsharded run's, except the judge request counters
    (summed over shards) and the time stamp.
    """
    from tracegrade.atif import merge_results, read_results, write_artifacts

    _refuse_an_input(output, results)
    merged = merge_results([read_results(path) for path in results])
    claim_output(output, kind="atif-judge", job_id=merged.job_id, overwrite=overwrite)
    write_artifacts(merged, output)
    summary = merged.summary
    if not quiet:
        from tracegrade.render import terminal_safe

        score = "—" if summary.atif_overall_score is None else f"{summary.atif_overall_score:.4f}"
        Console(highlight=False).print(
            terminal_safe(f"merged {len(results)} shards of {merged.job_id}: atif_overall_score {score}, "
                          f"{summary.atif_trajectory_count} trajectories, job {summary.job_status} -> {output}/"),
            markup=False,
            highlight=False,
        )
    if outcome_exit_code(summary.job_status) is not ExitCode.OK:
        raise typer.Exit(int(outcome_exit_code(summary.job_status)))


def _refuse_an_input(output: Path, results: list[Path]) -> None:
    """The merged run never replaces one of the shards it is made of."""
    from tracegrade.errors import ConfigError

    target = output.resolve()
    for path in results:
        folder = path.resolve() if path.is_dir() else path.resolve().parent
        if folder == target:
            raise ConfigError(f"--output {output}: is one of the inputs ({path}); choose another folder")
