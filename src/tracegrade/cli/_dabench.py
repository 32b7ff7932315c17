"""``dabench`` (also ``tracegrade dabench``): DataAgent-Bench run evaluation, comparison, ablation, figures."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from pydantic import BaseModel
from rich.console import Console

from tracegrade.cli._compare import EXIT_CODES_HELP as COMPARE_EXIT_CODES
from tracegrade.cli._compare import GATE_OPTIONS
from tracegrade.cli._help import App
from tracegrade.cli._options import OptionGroup, Overwrite, validated, with_model_options
from tracegrade.dabench import MetricParams, PipelineOptions, Resampling, RunLocation
from tracegrade.errors import ConfigError, Interrupted, OutputError, TracegradeError
from tracegrade.stats import GateOptions

if TYPE_CHECKING:
    from tracegrade.dabench import RunRows

__all__ = ["dabench_app"]

EXIT_CODES_HELP = "Exit codes: 0 ok; 2 invalid input or usage; 4 operational failure; 130 interrupted."

dabench_app = App(
    name="dabench",
    help=f"DataAgent-Bench (KDD Cup 2026) run evaluation.\n\n{EXIT_CODES_HELP}",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

M = TypeVar("M", bound=BaseModel)


class Format(StrEnum):
    """Terminal report (rich) or one JSON document on stdout."""

    TEXT = "text"
    JSON = "json"


_OPTIONS = "Options"
_FLAGS = {"lam": "--lambda"}
"""Fields offered under another flag than their name."""
_RUNS_ROOT = OptionGroup(RunLocation, _OPTIONS)
_RESAMPLES = OptionGroup(Resampling, _OPTIONS, only=("resamples",))
FormatOption = Annotated[Format, typer.Option("--format", help="text (rich report) or json (stdout).")]


@dabench_app.callback()
def _root() -> None:
    """DataAgent-Bench (KDD Cup 2026) run evaluation."""


def _console() -> Console:
    return Console(highlight=False)


def _print_json(document: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n")


@dabench_app.command("eval-v2", epilog=EXIT_CODES_HELP)
@with_model_options(
    OptionGroup(PipelineOptions, _OPTIONS, only=("mode",)),
    _RUNS_ROOT,
    OptionGroup(MetricParams, _OPTIONS, only=("lam", "max_replans"), flags=_FLAGS),
    OptionGroup(PipelineOptions, _OPTIONS, only=("baseline",)),
    _RESAMPLES,
)
def eval_v2(
    run: Annotated[str, typer.Argument(help="A run id under --runs-root, or a path to a run folder.")],
    data_root: Annotated[
        Path | None,
        typer.Option(
            help="Dataset root: input/task_<id>/task.json and output/task_<id>/gold.csv (answer metrics need it)."
        ),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Folder for every artifact (default: the run folder).")
    ] = None,
    output_format: FormatOption = Format.TEXT,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no report.")] = False,
    overwrite: Overwrite = False,
    *,
    parameters: dict[str, Any],
) -> None:
    """Evaluate a run and write everything: tables, reconciliation, replays, health, reports.

    Writes task_metrics, trajectory, tool_calls and comprehensive_evaluation (CSV + Parquet),
    artifact_reconciliation_report, engineering_health_report, auditor_validation_report.md,
    task_<id>/task_replay.json and answer.csv, report.json and report.html (research mode also
    figures/*.png and paper_tables.md/.tex), then manifest.json last. A malformed task costs only that task.
    """
    from tracegrade.dabench import EvalOptions, read_summary, resolve_run, run_pipeline
    from tracegrade.runs import interrupts, progress

    params, location = validated(MetricParams, parameters, _FLAGS), validated(RunLocation, parameters, _FLAGS)
    resampling = validated(Resampling, parameters, _FLAGS)
    if data_root is not None and not data_root.is_dir():
        raise ConfigError(f"--data-root {data_root}: not a folder", code="data_root_not_found")
    pipeline = validated(PipelineOptions, {**parameters, "resampling": resampling}, _FLAGS)
    options = EvalOptions(run, location.runs_root, data_root, output, params)
    if output is not None:  # the default, the run folder itself, is where its evaluation always goes
        from tracegrade.runs import claim_output

        claim_output(output, kind="dabench-eval-v2", overwrite=overwrite)
    run_dir = resolve_run(run, location.runs_root)
    total = len(read_summary(run_dir).entries)
    show = not quiet and output_format is Format.TEXT
    try:
        with interrupts(), progress(total, "evaluating tasks", enabled=show) as advance:
            result = run_pipeline(options, pipeline, advance=advance)
    except KeyboardInterrupt:
        raise Interrupted(_kept(output or run_dir, total)) from None
    if quiet or result.report is None:
        return
    if output_format is Format.JSON:
        _print_json(result.report.model_dump(mode="json"))
        return
    _show_report(result.report, result.summary.output_dir)


def _kept(folder: Path, total: int) -> str:
    """What an interrupted eval-v2 kept: the finished tasks, once their folder has its manifest."""
    from tracegrade.runs import read_manifest

    rerun = "the same command again evaluates every task"
    try:
        manifest = read_manifest(folder, verify=False)
    except TracegradeError:
        manifest = {}
    if manifest.get("status") != "interrupted":  # stopped while the reports were written, before manifest.json
        return f"nothing was kept (stopped before {folder}/manifest.json was written); {rerun}"
    kept = manifest.get("metadata", {}).get("task_count", 0)
    return (f"kept {kept} of {total} tasks evaluated, with their reports, in {folder}/ (manifest status "
            f"interrupted); {rerun}")


def _show_report(report: Any, output_dir: Path) -> None:
    from tracegrade.dabench import render_report

    console = _console()
    footer = [f"Artifacts in {output_dir}: report.html, engineering_health_report.txt, task_<id>/task_replay.json."]
    console.print(render_report(report, width=console.width, footer=footer))


def _evaluated(run: str, location: RunLocation, columns: tuple[str, ...] | None = None, *,
               verify: bool = False) -> RunRows:
    from tracegrade.dabench import read_evaluated, resolve_run

    return read_evaluated(resolve_run(run, location.runs_root), columns, verify=verify)


def _write_json(path: Path | None, document: Any) -> None:
    if path is None:
        return
    from tracegrade.runs import dump_json

    _write_file(path, dump_json(document))


def _write_file(path: Path, data: bytes) -> None:
    from tracegrade._io import write_atomic

    try:
        write_atomic(path, data)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({exc.strerror or exc})") from None


@dabench_app.command("compare", epilog=COMPARE_EXIT_CODES)
@with_model_options(_RUNS_ROOT, _RESAMPLES, GATE_OPTIONS)
def compare(
    baseline: Annotated[str, typer.Argument(help="Baseline (A): an evaluated run folder (or run id, --runs-root).")],
    candidate: Annotated[str, typer.Argument(help="Candidate (B): an evaluated run folder (or run id).")],
    metric: Annotated[str, typer.Option(help="task_metrics column to compare.")] = "final_score",
    strict: Annotated[bool, typer.Option(help="Refuse runs whose task sets differ.")] = False,
    output_format: FormatOption = Format.TEXT,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Also write the comparison as JSON.")] = None,
    allow_unhealthy: Annotated[bool, typer.Option(
        "--allow-unhealthy", help="Compare even when a run's harness health is UNHEALTHY (refused by default, exit 2).",
    )] = False,
    *,
    parameters: dict[str, Any],
) -> int:
    """Compare two evaluated runs paired by task_id: improved/regressed, Wilcoxon, Cohen's d, bootstrap CI, a CI gate.

    Both runs' harness health is shown first; an UNHEALTHY run is refused unless --allow-unhealthy. Each
    folder must match its manifest (an edited table is refused). Tasks in only one run, pairs where either
    score is null, and pairs where either run lacks the prediction its summary.json lists are named and
    excluded; runs scored with different λ or success threshold are refused.
    """
    from tracegrade.dabench import compare_runs, comparison_sections, render_sections

    resampling, location = validated(Resampling, parameters, _FLAGS), validated(RunLocation, parameters, _FLAGS)
    gate = validated(GateOptions, parameters, _FLAGS)
    columns = ("task_id", "run_id", metric)
    a, b = _evaluated(baseline, location, columns, verify=True), _evaluated(candidate, location, columns, verify=True)
    result = compare_runs(a, b, metric=metric, resampling=resampling, strict=strict, gate=gate,
                          allow_unhealthy=allow_unhealthy)
    _write_json(output, result.model_dump(mode="json"))
    if output_format is Format.JSON:
        _print_json(result.model_dump(mode="json"))
    else:
        console = _console()
        console.print(render_sections(comparison_sections(result), console.width))
    return result.gate.exit_code


@dabench_app.command("ablation", epilog=EXIT_CODES_HELP)
@with_model_options(_RUNS_ROOT)
def ablation(
    run: Annotated[str, typer.Argument(help="An evaluated run folder (or run id under --runs-root).")],
    output_format: FormatOption = Format.TEXT,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Also write the ablations as JSON.")] = None,
    *,
    parameters: dict[str, Any],
) -> None:
    """Ablations of final_score: verification, replanning, tool-efficiency quartiles, specialists."""
    from tracegrade.dabench import ablation_sections, render_sections, specialist_section

    rows = _evaluated(run, validated(RunLocation, parameters, _FLAGS))
    sections = [*ablation_sections(rows), specialist_section(rows)]
    document = {"run_id": rows.run_id, "sections": [s.model_dump(mode="json") for s in sections]}
    _write_json(output, document)
    if output_format is Format.JSON:
        _print_json(document)
        return
    console = _console()
    console.print(render_sections(sections, console.width))


@dabench_app.command("figures", epilog=EXIT_CODES_HELP)
@with_model_options(_RUNS_ROOT)
def figures(
    run: Annotated[str, typer.Argument(help="An evaluated run folder (or run id under --runs-root).")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Folder for the PNG files (default: RUN/figures).")
    ] = None,
    *,
    parameters: dict[str, Any],
) -> None:
    """Write the paper figures as PNG: score and failure distributions, autonomy vs efficiency, correlations."""
    from tracegrade.dabench import draw_figures

    rows = _evaluated(run, validated(RunLocation, parameters, _FLAGS))
    folder = output or rows.folder / "figures"
    console = _console()
    for figure in draw_figures(rows):
        if figure.png is None:
            console.print(f"skipped {figure.name}: {figure.skipped}", markup=False)
            continue
        path = folder / f"{figure.name}.png"
        _write_file(path, figure.png)
        console.print(f"wrote {path}", markup=False)
