"""``tracegrade validate``: per-file ATIF verdicts."""

from __future__ import annotations

import os
import sys
from dataclasses import asdict
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table

from tracegrade.atif import FileReport, LoadOptions, LoadResult, load_trajectories
from tracegrade.errors import ExitCode

__all__ = ["validate"]


class OutputFormat(StrEnum):
    """How verdicts are printed."""

    TABLE = "table"
    JSON = "json"


def validate(
    paths: Annotated[list[Path], typer.Argument(help="ATIF files (.json, .jsonl) or directories (recursive).")],
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="table (rich, for people) or json (for machines).")
    ] = OutputFormat.TABLE,
    max_file_bytes: Annotated[int, typer.Option(help="Refuse files larger than this.")] = 10 * 1024 * 1024,
    max_trajectory_files: Annotated[int, typer.Option(help="Refuse more files than this.")] = 10_000,
    max_steps_per_trajectory: Annotated[int, typer.Option(help="Refuse documents with more steps.")] = 500,
    max_total_steps: Annotated[int, typer.Option(help="Refuse inputs with more steps in all.")] = 10_000,
    max_subagent_depth: Annotated[int, typer.Option(help="Deeper subagents are marked unscored.")] = 3,
) -> None:
    """Check ATIF trajectories (v1.0-v1.8) and print one verdict per file.

    Exit 0 when every file is valid ATIF, 2 otherwise. Warnings (non-enforced rules, references that
    could not be followed) do not change the exit code.
    """
    options = LoadOptions(
        max_file_bytes=max_file_bytes,
        max_trajectory_files=max_trajectory_files,
        max_steps_per_trajectory=max_steps_per_trajectory,
        max_total_steps=max_total_steps,
        max_subagent_depth=max_subagent_depth,
        strict=False,
    )
    result = load_trajectories(paths, options, reports=True)
    if output_format is OutputFormat.JSON:
        sys.stdout.write(orjson.dumps(_as_json(result), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        _print_table(result.files)
        _print_skipped(result)
    if not all(f.valid for f in result.files):
        raise typer.Exit(int(ExitCode.INVALID_INPUT))


def _as_json(result: LoadResult) -> dict[str, object]:
    files = [asdict(f) for f in result.files]
    skipped = [asdict(a) for a in result.inputs if a.status == "skipped"]
    return {"valid": all(f.valid for f in result.files), "files": files, "skipped": skipped}


def _print_table(files: tuple[FileReport, ...]) -> None:
    console = Console()
    table = Table(title="ATIF validation", caption=None, show_lines=False)
    for column in (
        "file",
        "role",
        "verdict",
        "version",
        "agent",
        "steps",
        "subagents emb/file",
        "continues in",
        "notes",
    ):
        table.add_column(column, overflow="fold", ratio=3 if column in ("file", "notes") else None)
    base = os.path.commonpath([os.path.dirname(f.path) for f in files]) if files else ""
    for report in files:
        short = os.path.relpath(report.path, base)
        where = f"{short}:{report.location}" if report.location else short
        verdict = "[green]valid[/]" if report.valid else f"[red]invalid[/] ({report.code})"
        count = len(report.warnings)
        notes = report.error or (f"{count} warning{'s' if count > 1 else ''}" if count else "")
        table.add_row(
            where,
            report.role if report.valid else "",
            verdict,
            report.schema_version or "",
            report.agent or "",
            "" if report.steps is None else str(report.steps),
            f"{report.embedded_subagents}/{report.file_subagents}",
            report.continuation or "",
            notes,
        )
    console.print(table)
    if base:
        console.print(f"paths relative to {base}", markup=False)
    for report in files:
        for warning in report.warnings:
            console.print(f"warning: {os.path.relpath(report.path, base)}: {warning}", markup=False)
    valid = sum(f.valid for f in files)
    console.print(f"{valid} of {len(files)} documents valid")


def _print_skipped(result: LoadResult) -> None:
    skipped = [a for a in result.inputs if a.status == "skipped"]
    if skipped:
        console = Console(stderr=True)
        for account in skipped:
            console.print(f"skipped {account.path}: {account.message}", markup=False)
