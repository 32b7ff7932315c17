"""``tracegrade compare BASELINE CANDIDATE``: two judge runs side by side, with a CI gate.

Its other modes, ``--judges`` (judge against judge) and ``--pairwise`` (which trajectory is better), are here too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from tracegrade.atif import ComparisonOptions
from tracegrade.cli._options import (
    JUDGE_PANEL,
    NO_ENDPOINT,
    EndpointOptions,
    OptionGroup,
    Overwrite,
    validated,
    with_model_options,
)
from tracegrade.errors import ConfigError, ExitCode
from tracegrade.judge import JudgeOptions

if TYPE_CHECKING:
    from tracegrade.atif import JudgeTarget
from tracegrade.stats import GateOptions

__all__ = ["GATE_OPTIONS", "compare", "compare_judges_command", "compare_pairwise_command"]

EXIT_CODES_HELP = (
    "Exit codes: 0 compared and the gate passed (or was off); 1 the gate failed; 2 invalid input, a run folder "
    "that does not verify, or runs that are not comparable; 4 operational failure; 130 interrupted."
)
GATE_OPTIONS = OptionGroup(GateOptions, "Gate")
"""The gate's flags, the same on every compare command."""
_OUTPUT = "Output"
_MODES = "Other comparisons"


def compare(
    baseline: Annotated[Path, typer.Argument(help="Baseline judge run folder (plain, merged, or an EvalHub job's).")],
    candidate: Annotated[Path, typer.Argument(help="Candidate judge run folder.")],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Folder for comparison.json and comparison.html.", rich_help_panel=_OUTPUT),
    ] = None,
    allow_different: Annotated[
        list[str] | None,
        typer.Option("--allow-different", metavar="FIELD", rich_help_panel="Comparison",
                     help=ComparisonOptions.model_fields["allow_different"].description),
    ] = None,
    mlflow: Annotated[
        bool, typer.Option("--mlflow", help="Also log the comparison to MLflow.", rich_help_panel=_OUTPUT)
    ] = False,
    mlflow_uri: Annotated[
        str | None,
        typer.Option(help="Tracking URI (default: $MLFLOW_TRACKING_URI, else sqlite:///./mlruns.db).",
                     rich_help_panel=_OUTPUT),
    ] = None,
    mlflow_experiment: Annotated[
        str, typer.Option(help="MLflow experiment the comparison is logged under.", rich_help_panel=_OUTPUT)
    ] = "tracegrade",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.", rich_help_panel=_OUTPUT)] = False,
    judges: Annotated[
        bool, typer.Option("--judges", rich_help_panel=_MODES,
                           help="Judge against judge: two runs of the same trajectories by different judges.")
    ] = False,
    fail_on_disagreement: Annotated[
        float | None,
        typer.Option("--fail-on-disagreement", metavar="KAPPA", min=-1.0, max=1.0, rich_help_panel=_MODES,
                     help="With --judges: exit 1 when the upper bound of the step pass/fail kappa's interval is "
                     "below KAPPA (or no interval exists).")
    ] = None,
    pairwise: Annotated[
        bool, typer.Option("--pairwise", rich_help_panel=_MODES,
                           help="Ask the judge which trajectory of each pair is better, in both orders; BASELINE "
                           "and CANDIDATE are trajectory files or folders, or judge run folders.")
    ] = False,
    endpoint: EndpointOptions = NO_ENDPOINT,
    cache: Annotated[Path | None, typer.Option(help="Judge cache file (--pairwise).", rich_help_panel=_MODES)] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the judge cache (--pairwise).",
                           rich_help_panel=_MODES)
    ] = False,
    overwrite: Overwrite = False,
    *,
    parameters: dict[str, Any],
) -> int:
    """Compare two judge runs of the same trajectories: paired deltas, intervals, changed pairs, a CI gate.

    Refuses runs whose judge, prompt version, criteria, aggregation, thresholds or scored frames differ
    (exit 2, naming the field) unless --allow-different names the field. Trajectories pair by
    trajectory_id or session_id, else path, else task text; unpaired ones are listed.
    """
    from tracegrade.atif import compare_runs
    from tracegrade.atif.output import comparison_lines, write_comparison

    options = validated(ComparisonOptions, {**parameters, "allow_different": tuple(allow_different or ())})
    if (judges or pairwise) and mlflow:
        raise ConfigError("--mlflow logs the regression comparison only, not --judges or --pairwise")
    if judges and pairwise:
        raise ConfigError("--judges and --pairwise are two different comparisons; give one")
    if pairwise:
        from tracegrade.cli._compare import compare_pairwise_command
        from tracegrade.judge import default_cache_path

        target = endpoint.target()
        return compare_pairwise_command(baseline, candidate, target, validated(JudgeOptions, parameters), options,
                                        validated(GateOptions, parameters), output, quiet=quiet,
                                        cache_path=None if no_cache else (cache or default_cache_path()))
    if judges or fail_on_disagreement is not None:
        from tracegrade.cli._compare import compare_judges_command

        return compare_judges_command(baseline, candidate, options, output, quiet=quiet, judges=judges,
                                      fail_on_disagreement=fail_on_disagreement)
    gate = validated(GateOptions, parameters)
    outcome = compare_runs(baseline, candidate, options, gate)
    if output is not None:  # the same two runs compared again replace their comparison
        from tracegrade.runs import claim_output

        pair = f"{outcome.comparison.baseline.job_id}..{outcome.comparison.candidate.job_id}"
        claim_output(output, kind="atif-compare", job_id=pair, overwrite=overwrite)
    files = write_comparison(outcome, output) if output is not None else {}
    _print_mode(comparison_lines(outcome.comparison), output, quiet=quiet)
    if mlflow:
        from tracegrade.integrations.mlflow import log_comparison

        run_id = log_comparison(outcome.comparison, files, tracking_uri=mlflow_uri, experiment=mlflow_experiment)
        if not quiet:
            Console(highlight=False, width=80).print(f"MLflow run: {run_id}", markup=False)
    return outcome.comparison.gate.exit_code


compare = with_model_options(
    OptionGroup(ComparisonOptions, "Comparison", exclude=("allow_different",)), GATE_OPTIONS,
    OptionGroup(JudgeOptions, JUDGE_PANEL), shared_cache_option=False,
)(compare)

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
    _print_mode(judges_lines(outcome.comparison), output, quiet=quiet)
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
    _print_mode(pairwise_lines(c), output, quiet=quiet)
    if c.gate.exit_code:
        return c.gate.exit_code
    return int(ExitCode.OPERATIONAL) if c.counts["error"] and c.n == 0 else 0


def _print_mode(lines: list[str], output: Path | None, *, quiet: bool) -> None:
    """A comparison's summary at 80 columns (only from a failed gate on, when quiet), then where its files went."""
    if quiet:  # the rule that failed the gate is printed anyway
        lines = lines[next((i for i, line in enumerate(lines) if line.startswith("gate: FAILED")), len(lines)):]
    console = Console(highlight=False, width=80)
    for line in lines:
        console.print(line, markup=False)
    if not quiet and output is not None:
        console.print(f"-> {output}/ (comparison.json, comparison.html, manifest.json)", markup=False)
