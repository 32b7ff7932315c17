"""``tracegrade validate``: per-file ATIF verdicts, readable at 80 columns."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import fields
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.text import Text

from tracegrade.atif import ScoringOptions
from tracegrade.cli._options import OptionGroup, with_model_options
from tracegrade.errors import ExitCode, InputError

if TYPE_CHECKING:
    from tracegrade.atif import LoadResult
    from tracegrade.atif.reading import FileReport
    from tracegrade.render import Column

__all__ = ["render_validation", "validate"]

_LIMITS = (
    "max_file_bytes",
    "max_trajectory_files",
    "max_steps_per_trajectory",
    "max_total_steps",
    "max_subagent_depth",
)


class OutputFormat(StrEnum):
    """How verdicts are printed."""

    TABLE = "table"
    JSON = "json"


@with_model_options(OptionGroup(ScoringOptions, "Limits", only=_LIMITS))
def validate(
    paths: Annotated[list[Path], typer.Argument(help="ATIF files (.json, .jsonl) or directories (recursive).")],
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="table (rich, for people) or json (for machines).")
    ] = OutputFormat.TABLE,
    details: Annotated[
        bool, typer.Option("--details", help="Also list every warning and reference of each document.")
    ] = False,
    *,
    parameters: dict[str, Any],
) -> None:
    """Check ATIF trajectories (v1.0-v1.8) and print one verdict per document.

    Exit 0 when every document is valid ATIF; 2 when one is not, or when nothing could be read.

    Warnings (rules the schema does not enforce, references that could not be followed) leave the exit code
    alone: the table counts them and --details lists them.
    """
    from tracegrade.atif import LoadOptions, load_trajectories

    options = LoadOptions(**parameters, strict=False)
    result = load_trajectories(paths, options, reports=True, trees=False)
    if not result.files:
        raise InputError(f"{', '.join(map(str, paths))}: no trajectory could be read (every file was skipped)")
    if output_format is OutputFormat.JSON:
        sys.stdout.write(orjson.dumps(_as_json(result), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        render_validation(result, paths, Console(highlight=False), details=details)
        _print_skipped(result)
    if not all(f.valid for f in result.files):
        raise typer.Exit(int(ExitCode.INVALID_INPUT))


def _as_json(result: LoadResult) -> dict[str, object]:
    files = [_shallow(f) for f in result.files]
    skipped = [_shallow(a) for a in result.inputs if a.status == "skipped"]
    return {"valid": all(f.valid for f in result.files), "files": files, "skipped": skipped}


def _shallow(record: object) -> dict[str, object]:
    """A record's fields as a dict (its values are already JSON types; ``asdict`` would deep-copy them)."""
    return {field.name: getattr(record, field.name) for field in fields(record)}  # type: ignore[arg-type]


def render_validation(result: LoadResult, paths: Sequence[Path], console: Console, *, details: bool = False) -> None:
    """Print the verdicts, the problems, and details on demand.

    The verdicts are a table when every column fits ``console.width`` whole, else one block per document.
    """
    from tracegrade.render import fit_table, table_width, terminal_safe

    base = _base(paths)
    rows = [_row(report, base) for report in result.files]
    columns = _columns(rows)
    if table_width(columns) <= console.width:
        console.print(fit_table("ATIF validation", columns, rows, width=console.width,
                                caption=f"paths relative to {base}"))
    else:
        _print_blocks(console, rows, base)
    for report in result.files:
        if not report.valid:
            line = f"invalid: {_problem(report, base)}"
            console.print(terminal_safe(line, lines=True), markup=False, soft_wrap=True)
    warnings = sum(len(report.warnings) for report in result.files)
    if details:
        for report in result.files:
            _print_details(console, report, base)
    elif warnings:
        noisy = sum(1 for report in result.files if report.warnings)
        console.print(f"{_plural(warnings, 'warning')} in {_plural(noisy, 'document')}; --details lists them")
    valid = sum(report.valid for report in result.files)
    console.print(f"{valid} of {_plural(len(result.files), 'document')} valid", markup=False)


_HEADERS = (("file", "file"), ("verdict", "verdict"), ("role", "role"), ("ATIF", "version"), ("steps", "steps"),
            ("agent", "agent"), ("subagents", "subagents"), ("notes", "notes"))
_RIGHT = frozenset({"steps", "subagents"})
_FACTS = (("role", "{}"), ("version", "ATIF {}"), ("steps", "{} steps"), ("agent", "agent {}"),
          ("subagents", "{} subagents"), ("notes", "{}"))


def _columns(rows: list[dict[str, object]]) -> list[Column]:
    """Every column, each as wide as its longest cell: shown whole or not as a table at all."""
    from tracegrade.render import Column

    return [
        Column(header, key, min_width=max([len(header), *(len(str(row[key])) for row in rows)]),
               justify="right" if key in _RIGHT else "left")
        for header, key in _HEADERS
    ]


def _print_blocks(console: Console, rows: list[dict[str, object]], base: Path) -> None:
    """Each document as its whole path, then its verdict and facts on an indented line (narrow terminals)."""
    from rich.padding import Padding

    from tracegrade.render import terminal_safe

    console.print(terminal_safe(f"ATIF validation (paths relative to {base})"), markup=False, style="bold")
    for row in rows:
        console.print(terminal_safe(f"  {row['file']}"), markup=False, soft_wrap=True)
        facts = Text()
        facts.append_text(row["verdict"] if isinstance(row["verdict"], Text) else Text(str(row["verdict"])))
        for key, template in _FACTS:
            if row[key]:
                facts.append(", " + terminal_safe(template.format(row[key])))
        console.print(Padding(facts, (0, 0, 0, 4)))


def _row(report: FileReport, base: Path) -> dict[str, object]:
    verdict = Text("valid", style="green") if report.valid else Text("invalid", style="red")
    count = len(report.warnings)
    notes = report.code if not report.valid else (_plural(count, "warning") if count else "")
    subagents = report.embedded_subagents + report.file_subagents
    return {
        "file": _short(report, base),
        "verdict": verdict,
        "role": report.role if report.valid else "",
        "version": (report.schema_version or "").removeprefix("ATIF-v"),
        "steps": "" if report.steps is None else str(report.steps),
        "agent": report.agent or "",
        "subagents": str(subagents) if report.valid else "",
        "notes": notes,
    }


def _print_details(console: Console, report: FileReport, base: Path) -> None:
    lines = []
    if report.valid:
        version = (report.schema_version or "").removeprefix("ATIF-")
        lines.append(f"agent {report.agent}, ATIF {version}, {_plural(report.steps or 0, 'step')}")
        lines.append(f"subagents: {report.embedded_subagents} embedded, {report.file_subagents} by file reference")
    if report.continuation:
        lines.append(f"continues in {report.continuation}")
    lines.extend(f"warning: {warning}" for warning in report.warnings)
    if lines:
        from tracegrade.render import terminal_safe

        console.print(terminal_safe(_short(report, base)), style="bold", markup=False)
        for line in lines:
            console.print(terminal_safe(f"  {line}", lines=True), markup=False, soft_wrap=True)


def _base(paths: Sequence[Path]) -> Path:
    folders = [str(p.resolve() if p.is_dir() else p.resolve().parent) for p in paths]
    return Path(os.path.commonpath(folders))


def _short(report: FileReport, base: Path) -> str:
    short = os.path.relpath(report.path, base)
    return f"{short}:{report.location.removeprefix('line ')}" if report.location else short


def _problem(report: FileReport, base: Path) -> str:
    """The error with the file named relative to ``base`` (its ``:line:column`` kept as the error gives it)."""
    error = report.error or report.code or "invalid"
    if error.startswith(f"{report.path}:"):
        return os.path.relpath(report.path, base) + error.removeprefix(report.path)
    return f"{_short(report, base)}: {error}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _print_skipped(result: LoadResult) -> None:
    skipped = [a for a in result.inputs if a.status == "skipped"]
    if skipped:
        from tracegrade.render import terminal_safe

        console = Console(stderr=True, highlight=False)
        for account in skipped:
            console.print(terminal_safe(f"skipped {account.path}: {account.message}", lines=True), markup=False)
