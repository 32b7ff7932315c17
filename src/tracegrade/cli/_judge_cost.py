"""``tracegrade judge --dry-run``: every request the job would send, counted and priced, none sent."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from tracegrade.errors import ConfigError

if TYPE_CHECKING:
    from tracegrade.atif import CriteriaParams, JudgeTarget, ScoringOptions
    from tracegrade.judge import Prices

__all__ = ["DRY_RUN_NAME", "dry_run", "prices_from"]

DRY_RUN_NAME = "dry_run.json"


def prices_from(price_input: float | None, price_cached_input: float | None, price_output: float | None,
                batch_factor: float) -> Prices | None:
    """The prices given on the command line (per million tokens), or None when none were given.

    The cached-input price defaults to the input price (no discount).
    """
    from tracegrade.judge import Prices

    given = (price_input, price_cached_input, price_output)
    if all(value is None for value in given):
        return None
    if price_input is None or price_output is None:
        raise ConfigError("--price-input and --price-output go together (--price-cached-input is optional)")
    if any(value is not None and not value >= 0 for value in given) or not 0 < batch_factor <= 1:
        raise ConfigError("prices must be >= 0 and --price-batch-factor in (0, 1]")
    cached = price_input if price_cached_input is None else price_cached_input
    return Prices(input=price_input, cached_input=cached, output=price_output, batch_factor=batch_factor)


def dry_run(paths: list[Path], options: ScoringOptions, criteria: CriteriaParams, target: JudgeTarget, *,
            output: Path, job_id: str, cache_path: Path | None, prices: Prices | None, batch: bool,
            quiet: bool) -> dict[str, Any]:
    """Count and price the job's requests, write ``OUTPUT/dry_run.json`` and print the table; nothing is sent."""
    from tracegrade.atif import dry_run_document, dry_run_job
    from tracegrade.runs import dump_json, write_atomic

    found = asyncio.run(dry_run_job(paths, options, criteria, target, job_id, cache_path=cache_path))
    document = dry_run_document(found, prices, batch=batch)
    output.mkdir(parents=True, exist_ok=True)
    write_atomic(output / DRY_RUN_NAME, dump_json(document))
    if not quiet:
        _print(document, output / DRY_RUN_NAME)
    return document


def _print(document: dict[str, Any], path: Path) -> None:
    from rich.table import Table

    priced = "prices_per_million_tokens" in document
    batch = document["batch"]
    table = Table(title="tracegrade judge --dry-run (nothing sent)")
    for name in ("purpose", "to send", "cached", "bytes", "tokens~", "cacheable"):
        table.add_column(name, justify="left" if name == "purpose" else "right")
    costs = ["online", "+ cache", *(["batch+cache"] if batch else [])] if priced else []
    for name in costs:
        table.add_column(name, justify="right")
    rows = [*document["purposes"].items(), ("total", document["total"])]
    for purpose, row in rows:
        share = row["cacheable_share"]
        cells = [purpose, str(row["requests"]), str(row["cached"]), f"{row['prompt_bytes']:,}",
                 f"{row['input_tokens']:,}", "—" if share is None else f"{share:.0%}"]
        if priced:
            cells += [f"{row['cost_online_without_cache']:.4f}", f"{row['cost_online_with_cache']:.4f}"]
            if batch:
                cells.append(f"{row['cost_batch_with_cache']:.4f}")
        table.add_row(*cells)
    console = Console(highlight=False, soft_wrap=True)
    console.print(table)
    for note in document["notes"]:
        console.print(f"note: {note}", markup=False)
    if document["steps_unsendable"]:
        console.print(f"{document['steps_unsendable']} step(s) do not fit max_context_bytes: a real run fails them "
                      "(context_overflow)", markup=False)
    console.print(f"written: {path}", markup=False)
