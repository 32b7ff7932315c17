"""``tracegrade suite``: check a dataset, run it, replay a report, compare two reports."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import orjson
import typer
from rich.console import Console

from tracegrade.cli._compare import GATE_OPTIONS
from tracegrade.cli._help import App
from tracegrade.cli._options import JudgeKeyEnv, JudgeModel, JudgeUrl, OptionGroup, validated, with_model_options
from tracegrade.errors import ConfigError, Interrupted, OutputError
from tracegrade.stats import GateOptions
from tracegrade.suites import IntervalParameters, SuiteRunParameters

if TYPE_CHECKING:
    from tracegrade.suites import Dataset, JudgeAsker, SuiteReport, Target

__all__ = ["suite_app"]

T = TypeVar("T")

EXIT_CODES = ("Exit codes: 0 all checks passed (or a check/compare completed); 1 gold disagreement or a compare "
              "gate that fired; 2 invalid input, arguments or conflict; 3 missing optional dependency; 4 an attempt "
              "failed operationally; 130 interrupted.")
_TARGET = "System under test"

suite_app = App(help=f"Evaluation suites: datasets of cases with gold answers.\n\n{EXIT_CODES}",
                        no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

HtmlPath = Annotated[Path | None, typer.Option("--html", help="Also write a self-contained HTML report (0600).")]


def _echo_json(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")
    sys.stdout.flush()


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, width=None)


@suite_app.command(epilog=EXIT_CODES)
def check(dataset: Annotated[Path, typer.Argument(help="Dataset manifest (JSON).")]) -> int:
    """Validate a dataset without running anything; every problem is named with its file and place."""
    from tracegrade.suites import check_dataset

    valid, problems = check_dataset(dataset)
    for line in dict.fromkeys(str(problem) for problem in problems):  # each problem once
        sys.stderr.write(f"error: {line}\n")
    summary: dict[str, Any] = {"dataset": str(dataset), "valid": valid is not None, "problems": len(problems)}
    if valid is not None:
        summary.update(suites=len(valid.suites), cases=sum(len(s.cases) for s in valid.suites),
                       expectations=sum(s.columns.expectation_count() for s in valid.suites))
    _echo_json(summary)
    return 0 if valid is not None else 2


@suite_app.command(epilog=EXIT_CODES)
@with_model_options(OptionGroup(SuiteRunParameters, "Run"))
def run(
    context: typer.Context,
    dataset: Annotated[Path, typer.Argument(help="Dataset manifest (JSON).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Report JSON to write (0600; never overwritten).")],
    results: Annotated[Path | None, typer.Option(help="Recorded results (JSONL) to score instead of running.",
                                                 rich_help_panel=_TARGET)] = None,
    target_cmd: Annotated[str | None, typer.Option(help="Command run per attempt: request JSON on stdin, result "
                                                   "JSON on stdout.", rich_help_panel=_TARGET)] = None,
    target_url: Annotated[str | None, typer.Option(help="URL the request JSON is POSTed to per attempt.",
                                                   rich_help_panel=_TARGET)] = None,
    checkpoint: Annotated[Path | None, typer.Option(help="Checkpoint JSONL (default: REPORT.checkpoint.jsonl for "
                                                    "live targets); a rerun resumes from it.")] = None,
    html: HtmlPath = None,
    judge_url: JudgeUrl = None,
    judge_model: JudgeModel = None,
    judge_api_key_env: JudgeKeyEnv = None,
    max_concurrency: Annotated[int | None, typer.Option(hidden=True, help="Deprecated: --concurrency-limit.")] = None,
    *,
    parameters: dict[str, Any],
) -> int:
    """Run every case of every suite against the system under test and write the report.

    The judge options are needed only when the dataset has `judge` checks.
    """
    params = validated(SuiteRunParameters, _renamed_concurrency(context, parameters, max_concurrency))
    _refuse_existing(output, html)
    _require_writable(output, html, checkpoint)
    return _run(dataset, output, params, results, target_cmd, target_url, checkpoint, html, judge_url,
                    judge_model, judge_api_key_env)


def _run(dataset: Path, output: Path, params: SuiteRunParameters, results: Path | None, target_cmd: str | None,
         target_url: str | None, checkpoint: Path | None, html: Path | None, judge_url: str | None,
         judge_model: str | None, judge_api_key_env: str | None) -> int:
    from tracegrade.suites import load_dataset

    data = load_dataset(dataset)
    target = _target(data, params, results, target_cmd, target_url)
    if checkpoint is None and results is None:
        checkpoint = output.with_name(output.name + ".checkpoint.jsonl")

    async def go(judge: JudgeAsker | None) -> SuiteReport:
        from tracegrade.runs import progress
        from tracegrade.suites import run_dataset

        total = params.repeat * sum(len(s.cases) for s in data.suites)
        with progress(total, "attempts") as advance:
            return await run_dataset(data, target, params, judge=judge, judge_model=judge_model,
                                     checkpoint=checkpoint, advance=advance)

    try:
        report = _with_judge(data, judge_url, judge_model, judge_api_key_env, go)
    except KeyboardInterrupt:
        raise Interrupted(_kept(checkpoint)) from None
    code = _publish(report, output, html)
    if checkpoint is not None:
        checkpoint.unlink(missing_ok=True)
    return code


@suite_app.command(epilog=EXIT_CODES)
def replay(
    report: Annotated[Path, typer.Argument(help="A saved suite report (with details).")],
    dataset: Annotated[Path, typer.Option("--dataset", "-d", help="Dataset manifest with the current gold.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Report JSON to write (0600; never overwritten).")],
    html: HtmlPath = None,
    judge_url: JudgeUrl = None,
    judge_model: JudgeModel = None,
    judge_api_key_env: JudgeKeyEnv = None,
) -> int:
    """Rescore the results saved in REPORT against the current gold, running nothing (timing and usage kept).

    The judge options are needed only when the dataset has `judge` checks.
    """
    from tracegrade.suites import load_dataset, read_report, replay_report

    _refuse_existing(output, html)
    saved = read_report(report)
    data = load_dataset(dataset)

    async def go(judge: JudgeAsker | None) -> SuiteReport:
        return await replay_report(saved, data, judge=judge, judge_model=judge_model)

    return _publish(_with_judge(data, judge_url, judge_model, judge_api_key_env, go), output, html)


@suite_app.command(epilog=EXIT_CODES)
@with_model_options(OptionGroup(IntervalParameters, "Intervals"), GATE_OPTIONS)
def compare(
    first: Annotated[Path, typer.Argument(metavar="BASELINE", help="Report of the baseline.")],
    second: Annotated[Path | None, typer.Argument(metavar="CANDIDATE", help="Report of the candidate.")] = None,
    old_baseline: Annotated[Path | None, typer.Option(
        "--baseline", "-b", help="Deprecated: `compare CANDIDATE --baseline B` still works; write `compare B "
        "CANDIDATE`.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Comparison JSON to write (0600).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="A JSON summary on stdout instead of the table.")] = False,
    *,
    parameters: dict[str, Any],
) -> int:
    """Compare BASELINE with CANDIDATE: per-attempt changes, deltas with bootstrap intervals, a CI gate.

    Prints the table, the gate and where the comparison went; the JSON goes to --output, or to stdout
    with --json.

    Exits 0 whenever the comparison is produced, regressions included, unless a gate flag
    (--fail-on-regression, --fail-on-new-failures) fires: then 1, with the rule printed and recorded.
    """
    from tracegrade.suites import compare_reports, read_report, write_private

    baseline, candidate = _compare_sides(first, second, old_baseline)
    params, gate = validated(IntervalParameters, parameters), validated(GateOptions, parameters)
    _refuse_existing(output, None)
    result = compare_reports(read_report(candidate), read_report(baseline), params, gate=gate,
                             paths=(str(baseline), str(candidate)))
    if output is not None:
        write_private(output, orjson.dumps(result.model_dump(), option=orjson.OPT_INDENT_2))
    if as_json:
        _echo_json({"format": result.format, "output": None if output is None else str(output),
                    "primary": result.primary, "n": result.n, "mean_delta": result.mean_delta,
                    "interval": result.model_dump()["interval"], "p_value": result.p_value,
                    "gate": result.gate.model_dump(),
                    "suites": [{"suite": s.suite, "changes": s.changes.model_dump(),
                                "deltas": {k: v.model_dump()["delta"] for k, v in s.deltas.items()}}
                               for s in result.suites]})
    from tracegrade.suites import print_comparison

    shown = _stderr() if as_json else Console(highlight=False)
    if not as_json or shown.is_terminal:
        print_comparison(result, shown)
        shown.print(_primary_line(result), markup=False)
    for rule in result.gate.fired:
        _stderr().print(f"gate: exit 1: {rule}", markup=False)
    for warning in result.gate.warnings:
        _stderr().print(f"gate: warning: {warning}", markup=False)
    if not as_json:
        shown.print(f"-> {output}" if output is not None else "(no --output: the comparison JSON was not written)",
                    markup=False)
    return result.gate.exit_code


def _primary_line(result: Any) -> str:
    """The primary score's delta with its interval, rounded as in the table."""
    interval = result.interval
    bounds = ("no interval" if interval.low is None or interval.high is None
              else f"{interval.level:.0%} interval [{interval.low:+.1%}, {interval.high:+.1%}]")
    delta = "—" if result.mean_delta is None else f"{result.mean_delta:+.1%}"
    return f"{result.primary}: delta {delta}, {bounds}, n={result.n}"


def _compare_sides(first: Path, second: Path | None, old_baseline: Path | None) -> tuple[Path, Path]:
    """(baseline, candidate) from ``BASELINE CANDIDATE`` or the deprecated ``CANDIDATE --baseline B``."""
    if old_baseline is None:
        if second is None:
            raise ConfigError("suite compare: give BASELINE and CANDIDATE (two reports)")
        return first, second
    if second is not None:
        raise ConfigError("suite compare: give BASELINE CANDIDATE, or the deprecated CANDIDATE --baseline B, not both")
    typer.echo("note: `compare CANDIDATE --baseline B` is deprecated; write `compare B CANDIDATE`", err=True)
    return old_baseline, first


def _renamed_concurrency(context: typer.Context, parameters: dict[str, Any],
                         max_concurrency: int | None) -> dict[str, Any]:
    """The parameters with the deprecated ``--max-concurrency`` read as ``--concurrency-limit``."""
    if max_concurrency is None:
        return parameters
    sys.stderr.write("warning: --max-concurrency is deprecated; use --concurrency-limit\n")
    source = context.get_parameter_source("concurrency_limit")
    if source is not None and source.name == "COMMANDLINE":
        raise ConfigError("give --concurrency-limit only (--max-concurrency is its deprecated name)")
    return {**parameters, "concurrency_limit": max_concurrency}


def _refuse_existing(output: Path | None, html: Path | None) -> None:
    for path in (output, html):
        if path is not None and path.exists():
            raise ConfigError(f"{path} already exists; reports are never overwritten", code="output_exists")
    if output is not None and html is not None and output.resolve() == html.resolve():
        raise ConfigError("--output and --html name the same file")


def _require_writable(*paths: Path | None) -> None:
    """Each output's folder takes a file, checked before any attempt is run (exit 4 otherwise)."""
    import os
    import tempfile

    for path in paths:
        if path is None:
            continue
        try:
            fd, probe = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".probe")
        except OSError as exc:
            raise OutputError(f"{path}: not writable ({(exc.strerror or type(exc).__name__).lower()})") from None
        os.close(fd)
        os.unlink(probe)


def _target(data: Dataset, params: SuiteRunParameters, results: Path | None, command: str | None,
            url: str | None) -> Target:
    from tracegrade.suites import CommandTarget, HttpTarget, RecordedResults

    given = [name for name, value in (("--results", results), ("--target-cmd", command), ("--target-url", url))
             if value is not None]
    if len(given) != 1:
        raise ConfigError("give exactly one of --results, --target-cmd and --target-url"
                          + (f" (got {', '.join(given)})" if given else ""))
    if results is not None:
        return RecordedResults(results, data, params.repeat)
    return CommandTarget(command) if command is not None else HttpTarget(url or "")


def _kept(checkpoint: Path | None) -> str:
    """What an interrupted suite run kept: the finished attempts in its checkpoint."""
    if checkpoint is None or not checkpoint.is_file():
        return "nothing was kept (no report was written; the recorded results are scored again on a rerun)"
    with checkpoint.open("rb") as lines:
        finished = sum(chunk.count(b"\n") for chunk in iter(lambda: lines.read(1 << 20), b"")) - 1  # less the header
    noun = "attempt" if finished == 1 else "attempts"
    return f"kept {finished} finished {noun} in {checkpoint}; the same command again resumes from it"


def _with_judge(data: Dataset, url: str | None, model: str | None, key_env: str | None,
                go: Callable[[JudgeAsker | None], Awaitable[T]]) -> T:
    import asyncio

    from tracegrade.runs import interrupts
    from tracegrade.suites import JUDGE_COMPARISON

    needed = any(JUDGE_COMPARISON in s.columns.comparisons() for s in data.suites)
    if needed and (url is None or model is None):
        raise ConfigError("the dataset has judge checks: give --judge-url and --judge-model")

    async def main() -> T:
        async with _judge(url, model, key_env, needed) as judge:
            return await go(judge)

    with interrupts():
        return asyncio.run(main())


@contextlib.asynccontextmanager
async def _judge(url: str | None, model: str | None, key_env: str | None, needed: bool) -> AsyncIterator[Any]:
    if not needed or url is None or model is None:
        yield None
        return
    from tracegrade.judge import Judge, JudgeCache, JudgeSettings, default_cache_path

    async with Judge(JudgeSettings(base_url=url, model=model, api_key_env=key_env),
                     cache=JudgeCache(default_cache_path())) as judge:
        yield judge


def _publish(report: SuiteReport, output: Path, html: Path | None) -> int:
    from tracegrade.suites import exit_code, report_parts, report_summary, write_private

    write_private(output, report_parts(report))
    if html is not None:
        from tracegrade.suites import render_report_html

        write_private(html, render_report_html(report).encode())
    _echo_json(report_summary(report, output).model_dump())
    console = _stderr()
    if console.is_terminal:
        from tracegrade.suites import print_report

        print_report(report, console)
    return exit_code(report)
