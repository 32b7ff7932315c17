"""``tracegrade export``: send a finished run's verdicts to other tools (OpenTelemetry)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from tracegrade.cli._help import App

__all__ = ["export_app"]

export_app = App(
    name="export",
    help="Send the verdicts of a finished run to other tools.",
    no_args_is_help=True,
    add_completion=False,
)


@export_app.command("otel")
def otel(
    run: Annotated[Path, typer.Argument(help="Run folder of tracegrade judge (or its evaluation_results.json).")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary line.")] = False,
) -> None:
    """Send one gen_ai.evaluation.result event per judged step and per trajectory over OTLP/HTTP.

    The endpoint is $OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, else $OTEL_EXPORTER_OTLP_ENDPOINT + /v1/logs (headers and
    timeout from the usual OTEL_EXPORTER_OTLP_* variables). Steps imported with tracegrade import otel carry their
    trace and span ids, so each event lands under the span it grades. The trajectory files the run read must
    still be where the run found them.
    """
    from tracegrade.atif import read_results
    from tracegrade.integrations.otel import export_evaluations, logs_endpoint

    sent = export_evaluations(read_results(run))
    if not quiet:
        Console(highlight=False).print(f"sent {sent} evaluation events to {logs_endpoint()}", markup=False)
