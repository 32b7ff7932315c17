"""The other ways ``tracegrade judge`` runs: ``--dry-run`` and ``--judge-batch``.

``--dry-run`` counts and prices every request and sends none; ``--judge-batch`` sends the job through provider
batch jobs, reporting each batch while it waits and stopping cleanly on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from tracegrade.errors import ConfigError

if TYPE_CHECKING:
    from tracegrade.atif import CriteriaParams, EvaluationResults, JudgeTarget, ScoringOptions
    from tracegrade.atif.modes import BatchOptions
    from tracegrade.judge import Prices
    from tracegrade.runs import RunFolder

__all__ = ["DRY_RUN_NAME", "batch_options", "cancel_recorded", "dry_run", "prices_from", "run_batch"]

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
    from tracegrade._io import write_atomic
    from tracegrade.atif.modes import dry_run_document, dry_run_job
    from tracegrade.runs import dump_json

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


FALLBACKS = ("none", "online")


def batch_options(*, fallback: str, export: Path | None, imports: list[Path] | None, poll_seconds: float,
                  max_requests: int, max_bytes: int, window: str) -> BatchOptions:
    """The batch options given on the command line, checked."""
    from tracegrade.atif.modes import BatchOptions

    if fallback not in FALLBACKS:
        raise ConfigError(f"--judge-batch-fallback: one of {', '.join(FALLBACKS)}, got {fallback!r}")
    if not poll_seconds > 0 or max_requests < 1 or max_bytes < 1:
        raise ConfigError("--judge-batch-poll-seconds, --judge-batch-max-requests and --judge-batch-max-bytes "
                          "must be positive")
    return BatchOptions(max_requests=max_requests, max_bytes=max_bytes, poll_seconds=poll_seconds, window=window,
                        fallback_online=fallback == "online", export=export, imports=tuple(imports or ()))


def run_batch(paths: list[Path], options: Any, criteria: Any, target: JudgeTarget, *, folder: RunFolder,
              cache_path: Path | None, batch: BatchOptions, quiet: bool,
              ) -> tuple[EvaluationResults, dict[str, Path]] | None:
    """Run the job in batch rounds; None when a round's requests were exported instead (printed)."""
    from tracegrade.atif import JobContext
    from tracegrade.atif.modes import Exported, run_batch_job
    from tracegrade.runs import stop_signals

    console = Console(stderr=True, highlight=False, soft_wrap=True)

    def report(line: str) -> None:
        if not quiet:
            console.print(line, markup=False)

    async def main() -> tuple[EvaluationResults, dict[str, Path]] | Exported:
        stop = asyncio.Event()
        with stop_signals(stop.set):  # stop waiting; the batches stay recorded
            return await run_batch_job(paths, options, criteria, target, JobContext(folder.job_id), folder=folder,
                                       cache_path=cache_path, batch=batch, report=report, stop=stop)

    outcome = asyncio.run(main())
    if isinstance(outcome, Exported):
        if not quiet:
            Console(highlight=False, soft_wrap=True).print(
                f"{outcome.requests} requests written to {outcome.path}: run them (e.g. vllm run-batch -i "
                f"{outcome.path} -o OUT --model MODEL), then give --judge-batch-import OUT to the same command",
                markup=False)
        return None
    return outcome


def cancel_recorded(target: JudgeTarget, options: ScoringOptions, output: Path, *, quiet: bool) -> None:
    """Ask the provider to cancel the unfinished batches recorded in ``output``; what finished stays usable."""
    from tracegrade.atif.modes import BATCH_STATE_NAME, cancel_batches, judge_settings

    state = output / BATCH_STATE_NAME
    if not state.is_file():
        raise ConfigError(f"--judge-batch-cancel: {state} does not exist (no batch was sent for this folder)")
    console = Console(highlight=False, soft_wrap=True)
    asked = asyncio.run(cancel_batches(judge_settings(target, options), state,
                                       lambda line: None if quiet else console.print(line, markup=False)))
    if not quiet:
        console.print(f"{asked} batch(es) asked to cancel; the same command without --judge-batch-cancel reads "
                      "what they finished and records the rest as errors", markup=False)
