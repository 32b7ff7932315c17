"""``tracegrade agree``: compare a finished judge run with human labels."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tracegrade.errors import InputError, OutputError

if TYPE_CHECKING:
    from tracegrade.atif import AgreementReport

__all__ = ["agree"]


def agree(
    run: Annotated[Path, typer.Argument(help="Run folder of tracegrade judge (or its evaluation_results.json).")],
    labels: Annotated[Path, typer.Option("--labels", help="Human labels, one JSON object per line.")],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Agreement JSON to write (default: agreement.json in the run folder); the HTML page goes next to it.",
        ),
    ] = None,
    resamples: Annotated[int, typer.Option(min=100, max=100_000, help="Bootstrap resamples.")] = 2000,
    level: Annotated[float, typer.Option(min=0.5, max=0.999, help="Confidence level of the intervals.")] = 0.95,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No terminal summary.")] = False,
) -> None:
    """Compare a finished run with human labels: correlations, pass/fail and category agreement, localisation.

    Each label names a trajectory (node_id, trajectory_id or session_id) and optionally a step (step =
    the 1-based index of the results, or step_id with segment), with any of score, failed, category and
    decisive. Labels that match nothing are listed, never dropped.
    """
    from tracegrade.atif import measure_agreement, read_labels, read_results, render_agreement, render_report
    from tracegrade.runs import amend_manifest, dump_json, write_atomic

    results = read_results(run)
    report = measure_agreement(
        results, read_labels(labels), labels_file=str(labels), resamples=resamples, level=level, seed=seed
    )
    target = output or ((run if run.is_dir() else run.parent) / "agreement.json")
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    page = target.with_suffix(".html")
    in_run_folder = output is None and run.is_dir()
    try:
        write_atomic(target, dump_json(report.model_dump(mode="json")))
        write_atomic(page, render_agreement(report, generated_at=stamp).encode())
        if in_run_folder:  # the run's report gains an agreement section; the manifest records the new files
            write_atomic(run / "report.html", render_report(results, report).encode())
    except OSError as exc:
        raise OutputError(f"{target}: cannot write the agreement report ({type(exc).__name__})") from None
    if in_run_folder:
        amend_manifest(run, [target.name, page.name, "report.html"])
    if not quiet:
        _print_summary(report, target, page)
    if report.matched == 0:
        raise InputError(f"{labels}: none of its {report.labels} labels names a trajectory or step of {run} "
                         f"(the reasons are in {target})")


def _print_summary(report: AgreementReport, target: Path, page: Path) -> None:
    from tracegrade.atif import agreement_rows, issue_rows
    from tracegrade.render import Column, fit_table

    console = Console(highlight=False)
    columns = [
        Column("Level", "level", min_width=10, max_width=10),
        Column("Measure", "measure", min_width=15, max_width=15),
        Column("n", "n", min_width=3, justify="right"),
        Column("Value", "value", min_width=6, justify="right"),
        Column("Interval", "interval", min_width=13, priority=1),
        Column("Note", "note", min_width=12, priority=2),
    ]
    level = f"{report.level * 100:g}%"
    console.print(
        fit_table(
            f"Agreement with {report.matched} of {report.labels} labels ({level} intervals)",
            columns,
            agreement_rows(report),
        )
    )
    if report.unmatched:
        issues = issue_rows(report.unmatched)
        console.print(
            fit_table(
                f"{len(issues)} label(s) match nothing in the run",
                [
                    Column("Line", "line", min_width=4, justify="right"),
                    Column("Names", "target", min_width=20),
                    Column("Reason", "reason", min_width=12),
                ],
                issues,
            )
        )
    if report.excluded:
        console.print(
            f"{len(report.excluded)} matched label(s) left out of a measure: the judge gave nothing to "
            "compare (listed in the JSON).",
            markup=False,
        )
    console.print(f"-> {target} and {page.name}", markup=False)
