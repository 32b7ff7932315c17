"""``tracegrade merge``: combine the run folders of the shards of one job into one run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tracegrade.cli._options import Overwrite
from tracegrade.errors import ExitCode
from tracegrade.runs import JobStatus, claim_output

__all__ = ["merge"]


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
    if summary.job_status is JobStatus.INTERRUPTED:
        raise typer.Exit(int(ExitCode.INTERRUPTED))
    if summary.job_status is JobStatus.FAILED:
        raise typer.Exit(int(ExitCode.OPERATIONAL))


def _refuse_an_input(output: Path, results: list[Path]) -> None:
    """The merged run never replaces one of the shards it is made of."""
    from tracegrade.errors import ConfigError

    target = output.resolve()
    for path in results:
        folder = path.resolve() if path.is_dir() else path.resolve().parent
        if folder == target:
            raise ConfigError(f"--output {output}: is one of the inputs ({path}); choose another folder")
