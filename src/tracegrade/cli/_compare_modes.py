"""``tracegrade compare --judges`` (judge against judge) and ``--pairwise`` (which trajectory is better)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from tracegrade.atif import ComparisonOptions, JudgeTarget
from tracegrade.errors import ConfigError, ExitCode
from tracegrade.judge import JudgeOptions
from tracegrade.stats import GateOptions

__all__ = ["compare_judges_command", "compare_pairwise_command"]


def compare_judges_command(a: Path, b: Path, options: ComparisonOptions, output: Path | None, *, quiet: bool,
                           judges: bool, fail_on_disagreement: float | None) -> int:
    """Run ``compare --judges``: print the summary, write the folder, return the gate's exit code.

    Raises:
        ConfigError: ``--fail-on-disagreement`` without ``--judges``.
    """
    from tracegrade.atif.output import compare_judges, judges_lines, write_judges

    if not judges:
        raise ConfigError("--fail-on-disagreement applies to compare --judges only")
    outcome = compare_judges(a, b, options, fail_on_disagreement)
    if output is not None:
        write_judges(outcome, output)
    lines = judges_lines(outcome.comparison)
    if quiet:
        lines = lines[next((i for i, line in enumerate(lines) if line.startswith("gate: FAILED")), len(lines)):]
    console = Console(highlight=False, width=80)
    for line in lines:
        console.print(line, markup=False)
    if not quiet and output is not None:
        console.print(f"-> {output}/ (comparison.json, comparison.html, manifest.json)", markup=False)
    return outcome.comparison.gate.exit_code


def compare_pairwise_command(baseline: Path, candidate: Path, target: JudgeTarget, judge_options: JudgeOptions,
                             options: ComparisonOptions, gate: GateOptions, output: Path | None, *, quiet: bool,
                             cache_path: Path | None) -> int:
    """Run ``compare --pairwise``: ask the judge, print the summary, write the folder, return the gate's exit code.

    Exit 4 when no pair got a usable answer in both orders (every pair an error), after writing everything.
    """
    import asyncio

    from tracegrade.atif.modes import compare_pairwise
    from tracegrade.atif.output import pairwise_lines, write_pairwise

    outcome = asyncio.run(compare_pairwise(baseline, candidate, target, judge_options, options=options, gate=gate,
                                           cache_path=cache_path))
    c = outcome.comparison
    if output is not None:
        write_pairwise(c, outcome.steps, output)
    lines = pairwise_lines(c)
    if quiet:
        lines = lines[next((i for i, line in enumerate(lines) if line.startswith("gate: FAILED")), len(lines)):]
    console = Console(highlight=False, width=80)
    for line in lines:
        console.print(line, markup=False)
    if not quiet and output is not None:
        console.print(f"-> {output}/ (comparison.json, comparison.html, manifest.json)", markup=False)
    if c.gate.exit_code:
        return c.gate.exit_code
    return int(ExitCode.OPERATIONAL) if c.counts["error"] and c.n == 0 else 0
