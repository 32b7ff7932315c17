"""``tracegrade localise``: name the decisive agent and step of each failed trajectory."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from tracegrade.atif import LocaliseOptions
from tracegrade.cli._judge import tokens_line
from tracegrade.cli._options import (
    JUDGE_PANEL,
    EndpointOptions,
    OptionGroup,
    Overwrite,
    with_model_options,
    without_defaulted,
)
from tracegrade.errors import Interrupted, outcome_exit_code
from tracegrade.judge import JudgeOptions

if TYPE_CHECKING:
    from tracegrade.atif import LocalisationResults

__all__ = ["localise"]

_LOCALISE = "Localisation"
_OUTPUT = "Output"
_BATCH = "Batch"


@with_model_options(
    OptionGroup(LocaliseOptions, _LOCALISE, exclude=tuple(JudgeOptions.model_fields)),
    OptionGroup(LocaliseOptions, JUDGE_PANEL, only=tuple(JudgeOptions.model_fields)),
)
def localise(
    paths: Annotated[list[Path], typer.Argument(help="ATIF files or folders, or one run folder of tracegrade judge.")],
    endpoint: EndpointOptions,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Folder for localisation.json (default: the judge run given, else tracegrade-localise); "
        "a folder other than the judge run leaves the run untouched.", rich_help_panel=_OUTPUT)] = None,
    job_id: Annotated[str | None, typer.Option(help="Job id (default: derived from inputs, parameters and judge).",
                                               rich_help_panel=_OUTPUT)] = None,
    cache: Annotated[Path | None, typer.Option(help="Judge cache file.", rich_help_panel=_OUTPUT)] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the cache.", rich_help_panel=_OUTPUT)
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.", rich_help_panel=_OUTPUT)] = False,
    judge_batch: Annotated[bool, typer.Option(
        "--judge-batch", help="Send the requests as provider batch jobs (--strategy all-at-once; batch.json in -o).",
        rich_help_panel=_BATCH)] = False,
    judge_batch_fallback: Annotated[str, typer.Option(
        help="'online' sends the requests a batch could not answer online.", rich_help_panel=_BATCH)] = "none",
    judge_batch_poll_seconds: Annotated[float, typer.Option(
        help="Seconds between looks at the batches while waiting.", rich_help_panel=_BATCH)] = 30.0,
    overwrite: Overwrite = False,
    *,
    parameters: dict[str, Any],
    defaulted: frozenset[str] = frozenset(),
) -> None:
    """Name the decisive agent and step of each failed trajectory (Who&When strategies).

    Given one run folder of tracegrade judge, its failed roots are localised; without -o the localisation goes
    into that run folder and its report.html marks each decisive step, but only when every root was localised
    (otherwise it is kept as localisation.incomplete.json and the run's own files stay as they were); with -o
    elsewhere the run is not touched. Exit 4 when a trajectory could not be localised (the judge gave no usable
    answer), after writing everything.
    """
    import asyncio

    from tracegrade.atif import (
        localise_inputs,
        localise_options,
        otlp_meter_provider,
        run_localise_job,
        write_localisation,
    )
    from tracegrade.judge import default_cache_path
    from tracegrade.runs import JobStatus, claim_output, job_id_for, stop_signals

    options = localise_options(without_defaulted(parameters, defaulted))  # defaults: the judge kind's
    inputs = localise_inputs(paths)
    if output is None:
        output = inputs.run_folder if inputs.run_folder is not None else Path("tracegrade-localise")
    asks = options.strategy.value != "from-scores"
    target = endpoint.target() if asks else None
    material = {"paths": sorted(str(p.resolve()) for p in inputs.paths), "parameters": options.model_dump(mode="json"),
                "judge": [target.url, target.model, target.local] if target else None}
    chosen_id = job_id or job_id_for(material, prefix="tl")
    if output != inputs.run_folder:  # a judge run's own folder gains its localisation.json, whole or not at all
        claim_output(output, kind="atif-localise", job_id=chosen_id, overwrite=overwrite)  # its own run: a resume
    meters = otlp_meter_provider()  # OTLP when an endpoint is set: the judge's atif.judge.* metrics, as for judge
    cache_path = None if no_cache else (cache or default_cache_path())

    async def main() -> LocalisationResults:
        stop = asyncio.Event()
        with stop_signals(stop.set):  # Ctrl-C or SIGTERM: ask nothing more, keep what finished
            if judge_batch and target is not None:
                return await _batch(inputs, options, target, chosen_id, output, cache_path, stop, quiet,
                                    fallback=judge_batch_fallback, poll_seconds=judge_batch_poll_seconds)
            return await run_localise_job(inputs, options, target, job_id=chosen_id, meter_provider=meters,
                                          cache_path=cache_path, stop=stop)

    try:
        results = asyncio.run(main())
    finally:
        if meters is not None:
            meters.shutdown()
    written = write_localisation(results, output, inputs)
    if not quiet:
        _print_summary(results, written)
    into_run = inputs.run_folder is not None and output.resolve() == inputs.run_folder.resolve()
    if into_run and (results.summary.failed or results.summary.interrupted):
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            f"note: the localisation is incomplete; {output}/ keeps its own localisation.json and report.html, "
            f"this one is in {written[0]}", markup=False)
    if results.summary.interrupted:
        raise Interrupted(_kept(results, written, cache_path))
    if results.summary.failed:
        raise typer.Exit(int(outcome_exit_code(JobStatus.FAILED)))


async def _batch(inputs: Any, options: LocaliseOptions, target: Any, job_id: str, output: Path,
                 cache_path: Path | None, stop: Any, quiet: bool, *, fallback: str,
                 poll_seconds: float) -> LocalisationResults:
    """The localisation through batch jobs (all-at-once), progress on stderr."""
    from tracegrade.atif.modes import Exported, run_localise_batch
    from tracegrade.cli._judge_modes import batch_options

    batch = batch_options(fallback=fallback, export=None, imports=None, poll_seconds=poll_seconds,
                          max_requests=50_000, max_bytes=200_000_000, window="24h")
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    outcome = await run_localise_batch(inputs, options, target, job_id=job_id, folder=output, cache_path=cache_path,
                                       batch=batch, stop=stop,
                                       report=lambda line: None if quiet else console.print(line, markup=False))
    assert not isinstance(outcome, Exported)  # no export asked
    return outcome


def _kept(results: LocalisationResults, written: list[Path], cache_path: Path | None) -> str:
    """What an interrupted localisation kept, and how a rerun goes on."""
    summary = results.summary
    rerun = ("the same command again asks only for the rest (finished judge calls come from the judge cache)"
             if cache_path is not None else "a rerun pays every judge call again (--no-cache)")
    return (f"kept {summary.trajectories} finished of {summary.trajectories + summary.interrupted} localisations "
            f"in {written[0]}; {rerun}")


def longest_word(rows: list[dict[str, Any]], key: str, floor: int, cap: int) -> int:
    """Width for a wrapping column: its longest word (between ``floor`` and ``cap``), so words wrap whole."""
    words = [len(word) for row in rows for word in str(row[key] or "").split()]
    return max(floor, min(cap, max(words, default=0)))


def _print_summary(results: LocalisationResults, written: list[Path]) -> None:
    from tracegrade.render import Column, fit_table

    rows = [
        {"trajectory": row.node_id, "status": row.status.value, "agent": row.agent or "—",
         "step": row.step.ref if row.step else "—", "calls": row.calls,
         "note": (f"fallback to {row.used.value}" if row.fallback else "") or (row.error_code or "")}
        for row in results.trajectories
    ]
    columns = [
        Column("Trajectory", "trajectory", min_width=14),
        Column("Status", "status", min_width=10, max_width=10),
        Column("Agent", "agent", min_width=10),
        Column("Step", "step", min_width=6, max_width=10),
        Column("Calls", "calls", min_width=5, justify="right"),
        Column("Note", "note", min_width=longest_word(rows, "note", 8, 16), priority=1, wrap=True),
    ]
    summary = results.summary
    console = Console(highlight=False)
    title = (f"Localisation ({results.parameters.strategy.value}): {summary.localised} localised, "
             f"{summary.none_found} none found, {summary.failed} failed of {summary.trajectories}")
    console.print(fit_table(title, columns, rows))
    agreement = summary.repeat_step_agreement
    if agreement is not None:
        low, high = agreement.low, agreement.high
        bounds = "" if low is None or high is None else f" ({low:.0%}–{high:.0%})"
        console.print(f"repeats agree on the step in {agreement.value:.0%}{bounds} of answer pairs", markup=False)
    if summary.not_selected:
        console.print(f"{summary.not_selected} root(s) not localised (passed, or beyond --num-examples)", markup=False)
    console.print(f"judge questions {summary.calls} · tokens in / out {tokens_line(summary.judge)}", markup=False)
    console.print("-> " + ", ".join(str(p) for p in written), markup=False)
