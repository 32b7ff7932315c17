"""``dabench eval-v2`` (also ``tracegrade dabench eval-v2``): DataAgent-Bench run evaluation."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tracegrade.errors import ConfigError

__all__ = ["dabench_app"]

EXIT_CODES_HELP = "Exit codes: 0 ok; 2 invalid input or usage; 4 operational failure; 130 interrupted."

dabench_app = typer.Typer(
    name="dabench",
    help=f"DataAgent-Bench (KDD Cup 2026) run evaluation. {EXIT_CODES_HELP}",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Mode(StrEnum):
    """How much the terminal report shows."""

    STANDARD = "standard"
    VERBOSE = "verbose"
    RESEARCH = "research"


@dabench_app.callback()
def _root() -> None:
    """DataAgent-Bench (KDD Cup 2026) run evaluation."""


@dabench_app.command("eval-v2", epilog=EXIT_CODES_HELP)
def eval_v2(
    run: Annotated[str, typer.Argument(help="A run id under --runs-root, or a path to a run folder.")],
    mode: Annotated[Mode, typer.Option("--mode", help="standard, verbose or research.")] = Mode.STANDARD,
    runs_root: Annotated[Path, typer.Option(help="Where run ids are looked up.")] = Path("artifacts/runs"),
    data_root: Annotated[
        Path | None,
        typer.Option(
            help="Dataset root: input/task_<id>/task.json and output/task_<id>/gold.csv (answer metrics need it)."
        ),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Folder for the tables (default: the run folder).")
    ] = None,
    lam: Annotated[float, typer.Option("--lambda", help="Extra-column penalty λ of the Phase-1 score.")] = 0.5,
    max_replans: Annotated[int, typer.Option(help="Replans at which autonomy_score reaches 0.")] = 3,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no summary.")] = False,
) -> None:
    """Evaluate a run: task_metrics, trajectory, tool_calls and comprehensive_evaluation (CSV + Parquet).

    The tables and a manifest.json (parameters, the reason of every null metric, unreadable task parts)
    are written into the run folder, or --output. A malformed task costs only that task.
    """
    from tracegrade.dabench import EvalOptions, MetricParams, evaluate_run, read_summary, render_summary, resolve_run
    from tracegrade.runs import interrupts, progress

    if not 0 <= lam <= 10:
        raise ConfigError(f"--lambda {lam}: must be between 0 and 10")
    if max_replans < 1:
        raise ConfigError(f"--max-replans {max_replans}: must be at least 1")
    if data_root is not None and not data_root.is_dir():
        raise ConfigError(f"--data-root {data_root}: not a folder", code="data_root_not_found")
    options = EvalOptions(run, runs_root, data_root, output, MetricParams(lam=lam, max_replans=max_replans))
    total = len(read_summary(resolve_run(run, runs_root)).entries)
    with interrupts(), progress(total, "evaluating tasks", enabled=not quiet) as advance:
        summary = evaluate_run(options, advance=advance)
    if quiet:
        return
    console = Console(highlight=False)
    console.print(render_summary(summary, width=console.width))
    if mode is not Mode.STANDARD:
        console.print(
            f"note: the extra sections of --mode {mode} come with eval-v2 part 2; shown: standard.", markup=False
        )
