"""``tracegrade import``: turn annotated logs of other tools into ATIF trajectories and labels."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

__all__ = ["import_app"]

import_app = typer.Typer(
    name="import",
    help="Convert annotated logs of other tools into ATIF trajectories plus a labels file.",
    no_args_is_help=True,
    add_completion=False,
)

_SHOWN_WARNINGS = 10


@import_app.command("whowhen")
def whowhen(
    logs: Annotated[list[Path], typer.Argument(help="Who&When-style logs: *.json (one log), *.jsonl, or folders.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Folder for trajectories/ and labels.jsonl.")] = Path(
        "whowhen-import"
    ),
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.")] = False,
) -> None:
    """Import Who&When-style annotated multi-agent logs (history, mistake_agent, mistake_step, mistake_reason).

    Writes one ATIF trajectory per log under OUTPUT/trajectories/ and the annotations as labels in
    OUTPUT/labels.jsonl, ready for: tracegrade judge OUTPUT/trajectories -o RUN, then
    tracegrade agree RUN --labels OUTPUT/labels.jsonl.
    """
    from tracegrade.atif import import_whowhen

    result = import_whowhen(logs, output)
    if quiet:
        return
    console = Console(highlight=False, soft_wrap=True)
    console.print(
        f"imported {len(result.trajectories)} logs -> {output}/trajectories/, "
        f"{result.labels} labels -> {result.labels_path}",
        markup=False,
    )
    for warning in result.warnings[:_SHOWN_WARNINGS]:
        console.print(f"warning: {warning}", markup=False)
    if len(result.warnings) > _SHOWN_WARNINGS:
        console.print(f"... and {len(result.warnings) - _SHOWN_WARNINGS} more warnings", markup=False)
