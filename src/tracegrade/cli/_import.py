"""``tracegrade import``: turn traces and logs of other tools into ATIF trajectories (and labels).

``tracegrade export otel``, the way back out, is here too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tracegrade.cli._options import Overwrite
from tracegrade.render import terminal_safe
from tracegrade.runs import claim_output

if TYPE_CHECKING:
    from tracegrade.atif.importing import ImportResult

from tracegrade.cli._help import App

__all__ = ["export_app", "import_app"]

import_app = App(
    name="import",
    help="Convert traces and logs of other tools (OpenTelemetry, Inspect AI, Who&When) into ATIF trajectories.",
    no_args_is_help=True,
    add_completion=False,
)

_SHOWN_WARNINGS = 10
_OWN = ("trajectories", "import_report.json", "labels.jsonl", ".trajectories-*")
"""What an import writes: a folder holding only these is an earlier import, replaced by the new one."""


@import_app.command("whowhen")
def whowhen(
    logs: Annotated[list[Path], typer.Argument(help="Who&When-style logs: *.json (one log), *.jsonl, or folders.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Folder for trajectories/ and labels.jsonl.")] = Path(
        "whowhen-import"
    ),
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.")] = False,
    overwrite: Overwrite = False,
) -> None:
    """Import Who&When-style annotated multi-agent logs (history, mistake_agent, mistake_step, mistake_reason).

    Writes one ATIF trajectory per log under OUTPUT/trajectories/ and the annotations as labels in
    OUTPUT/labels.jsonl, ready for: tracegrade judge OUTPUT/trajectories -o RUN, then
    tracegrade agree RUN --labels OUTPUT/labels.jsonl.
    """
    from tracegrade.atif.importing import import_whowhen

    claim_output(output, kind="atif-import", overwrite=overwrite, own=_OWN)
    result = import_whowhen(logs, output)
    if quiet:
        return
    console = Console(highlight=False, soft_wrap=True)
    console.print(
        f"imported {_count(len(result.trajectories), 'log')} -> {output}/trajectories/, "
        f"{_count(result.labels, 'label')} -> {result.labels_path}",
        markup=False,
    )
    for warning in result.warnings[:_SHOWN_WARNINGS]:
        console.print(terminal_safe(f"warning: {warning}"), markup=False)
    if len(result.warnings) > _SHOWN_WARNINGS:
        console.print(f"... and {len(result.warnings) - _SHOWN_WARNINGS} more warnings", markup=False)


_OUTPUT_HELP = "Folder for trajectories/ and import_report.json."


@import_app.command("otel")
def otel(
    files: Annotated[
        list[Path],
        typer.Argument(help="OTLP/JSON requests (one per file or per line), span lists or JSONL of spans, or folders."),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help=_OUTPUT_HELP)] = Path("otel-import"),
    task_attribute: Annotated[str | None, typer.Option(
        "--task-attribute", metavar="KEY",
        help="Span attribute holding the task, for traces whose agent input and user messages hold none "
        "(judging in auto mode needs a task).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.")] = False,
    overwrite: Overwrite = False,
) -> None:
    """Import OpenTelemetry traces (GenAI semantic conventions or OpenInference) as ATIF trajectories.

    One trace becomes one trajectory under OUTPUT/trajectories/ (agents inside agents become sub-agents); what
    could not be mapped is counted per file in OUTPUT/import_report.json. Every step keeps its trace and span
    id, so verdicts can go back: tracegrade judge OUTPUT/trajectories -o RUN --otel-evaluations.
    """
    from tracegrade.atif.importing import import_otel

    claim_output(output, kind="atif-import", overwrite=overwrite, own=_OWN)
    result = import_otel(files, output, task_attribute=task_attribute)
    if not quiet:
        _print_import(result, output, "trace", task_option="--task-attribute KEY (the span attribute holding it)")


@import_app.command("inspect")
def inspect(
    logs: Annotated[list[Path], typer.Argument(help="Inspect AI logs (*.eval, *.json) or folders.")],
    output: Annotated[Path, typer.Option("--output", "-o", help=_OUTPUT_HELP)] = Path("inspect-import"),
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.")] = False,
    overwrite: Overwrite = False,
) -> None:
    """Import Inspect AI evaluation logs (read with inspect_ai's own reader) as ATIF trajectories.

    One trajectory per sample and epoch under OUTPUT/trajectories/, the target in extra.reference and Inspect's
    own scores in extra.inspect.scores; needs the optional extra: pip install 'tracegrade[inspect]'.
    """
    from tracegrade.atif.importing import import_inspect

    claim_output(output, kind="atif-import", overwrite=overwrite, own=_OWN)
    result = import_inspect(logs, output)
    if not quiet:
        _print_import(result, output, "sample")


_NO_FIELD = "token count with no ATIF field"


def _print_import(result: ImportResult, output: Path, what: str, task_option: str | None = None) -> None:
    console = Console(highlight=False, soft_wrap=True)
    report = result.report
    steps = sum(t.steps for t in report.trajectories)
    calls = sum(t.tool_calls for t in report.trajectories)
    subagents = sum(t.subagents for t in report.trajectories)
    console.print(
        f"imported {_count(len(report.trajectories), what)} -> {output}/trajectories/ "
        f"({_count(steps, 'step')}, {_count(calls, 'tool call')}, {_count(subagents, 'sub-agent trajectory')})",
        markup=False,
    )
    for file in report.files:
        if file.not_mapped:
            shown = ", ".join(f"{reason} x{count}" for reason, count in list(file.not_mapped.items())[:3])
            more = len(file.not_mapped) - 3
            line = f"not mapped in {file.path}: {shown}" + (f" (+{more} more)" if more > 0 else "")
            console.print(terminal_safe(line), markup=False)
        tokens = [reason.rpartition(": ")[2] for reason in file.not_mapped if reason.startswith(_NO_FIELD)]
        if tokens:  # always named: a count the user may look for in the trajectory and not find
            console.print(terminal_safe(f"{_NO_FIELD} in {file.path}: {', '.join(tokens)}"), markup=False)
    taskless = [t.trajectory_id for t in report.trajectories if not t.task_found]
    if taskless:
        mapped = f"map one with {task_option}, or " if task_option else ""
        console.print(terminal_safe(
            f"no task found for {_count(len(taskless), 'trajectory')}: {', '.join(taskless)}; judging them in auto "
            f"mode is refused: {mapped}judge with --scoring-mode benchmark or custom"), markup=False)
    console.print(f"details: {result.report_path}; next: tracegrade judge {output}/trajectories -o RUN", markup=False)


def _count(number: int, noun: str) -> str:
    """``1 log``, ``2 logs``, ``2 sub-agent trajectories``."""
    if number == 1:
        return f"{number} {noun}"
    return f"{number} {noun[:-1]}ies" if noun.endswith("y") else f"{number} {noun}s"

export_app = App(
    name="export",
    help="Send the verdicts of a finished run to other tools.",
    no_args_is_help=True,
    add_completion=False,
)


@export_app.command("otel")
def export_otel(
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
