"""``tracegrade agree``: compare a finished judge run with human labels."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tracegrade.cli._localise import longest_word
from tracegrade.errors import InputError, OutputError

if TYPE_CHECKING:
    from tracegrade.atif import AgreementReport, EvaluationResults, LocalisationResults
    from tracegrade.atif.agreement import Label, LocalisationAgreement

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
    localisation: Annotated[
        list[Path] | None,
        typer.Option("--localisation", help="Also score this localisation.json of tracegrade localise "
                     "(repeatable; the run folder's own is read when present)."),
    ] = None,
    reviewer: Annotated[
        str | None, typer.Option("--reviewer", help="Use only the labels of this reviewer (their `reviewer` field).")
    ] = None,
) -> None:
    """Compare a finished run with human labels: correlations, pass/fail and category agreement, localisation.

    Each label names a trajectory (node_id, trajectory_id or session_id) and optionally a step (step =
    the 1-based index of the results, or step_id with segment), with any of score, failed, category and
    decisive. Labels that match nothing are listed, never dropped. RUN may also be a localisation.json alone.
    Lines with "retract": true withdraw an earlier label of the same step by the same reviewer.
    """
    from tracegrade._io import write_atomic
    from tracegrade.atif import measure_agreement, read_results
    from tracegrade.atif.agreement import render_agreement
    from tracegrade.atif.output import render_report
    from tracegrade.runs import amend_manifest, dump_json

    folder = run if run.is_dir() else run.parent
    found = _localisations(run, folder, localisation or [])
    if output is not None:
        _refuse_inputs(output, [run, labels, *(Path(path) for path, _ in found)], folder)
    only_localised = (not (run / "evaluation_results.json").is_file()) if run.is_dir() else run.name == _LOCALISATION
    if found and only_localised:
        target = output or folder / _LOCALISATION_AGREEMENT
        _score_localisations(found, _labels_of(labels, reviewer), labels, target, resamples, level, seed, quiet)
        return
    results = read_results(run)
    given = _labels_of(labels, reviewer)
    report = measure_agreement(results, given, labels_file=str(labels), resamples=resamples, level=level, seed=seed)
    local = found[0][1] if found and found[0][0] == str(folder / _LOCALISATION) else None
    target = output or ((run if run.is_dir() else run.parent) / "agreement.json")
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    page = target.with_suffix(".html")
    in_run_folder = output is None and run.is_dir()
    try:
        write_atomic(target, dump_json(report.model_dump(mode="json")))
        write_atomic(page, render_agreement(report, generated_at=stamp).encode())
        if in_run_folder:  # the run's report gains an agreement section; the manifest records the new files
            write_atomic(run / "report.html", render_report(results, report, localisation=local).encode())
    except OSError as exc:
        raise OutputError(f"{target}: cannot write the agreement report ({type(exc).__name__})") from None
    if in_run_folder:
        amend_manifest(run, [target.name, page.name, "report.html"])
    if not quiet:
        _print_summary(report, target, page)
    if found:
        _score_localisations(found, given, labels, localisation_side_file(target), resamples, level, seed, quiet,
                             results)
    if report.matched == 0:
        raise InputError(f"{labels}: none of its {report.labels} labels names a trajectory or step of {run} "
                         f"(the reasons are in {target})")



_LOCALISATION = "localisation.json"
_LOCALISATION_AGREEMENT = "localisation-agreement.json"


def _refuse_inputs(output: Path, inputs: list[Path], folder: Path) -> None:
    """No file agree writes (the JSON, its page, its localisation figures) replaces one it reads or the run's own.

    Raises:
        ConfigError: naming the option and the input.
    """
    from tracegrade.errors import ConfigError
    from tracegrade.runs import MANIFEST_NAME, read_manifest

    read = {p.resolve() for p in inputs if p.is_file()}
    try:
        listed = read_manifest(folder, verify=False).get("files", {})
    except InputError:
        listed = {}
    read |= {(folder / name).resolve() for name in (*listed, MANIFEST_NAME)}
    for written in (output, output.with_suffix(".html"), localisation_side_file(output)):
        if written.resolve() in read:
            raise ConfigError(f"--output {output}: {written} is one of the inputs (or a file of the run); "
                              "choose another name")


def localisation_side_file(target: Path) -> Path:
    """Where the localisation figures of the agreement written to ``target`` go: named after it.

    The run folder's own ``agreement.json`` keeps ``localisation-agreement.json``; ``-o dir/x.json`` gets
    ``dir/x.localisation-agreement.json``, so two outputs in one folder never share (or replace) one.
    """
    if target.name == "agreement.json":
        return target.with_name(_LOCALISATION_AGREEMENT)
    return target.with_name(f"{target.stem}.{_LOCALISATION_AGREEMENT}")


def _localisations(run: Path, folder: Path, extra: list[Path]) -> list[tuple[str, LocalisationResults]]:
    """The localisations to score: RUN itself when it is one, the run folder's own, and those given."""
    from tracegrade.atif import read_localisation

    own = run if run.is_file() and run.name == _LOCALISATION else folder / _LOCALISATION
    paths = ([own] if own.is_file() else []) + [p for p in extra if p.resolve() != own.resolve()]
    return [(str(path), read_localisation(path)) for path in paths]


def _labels_of(path: Path, reviewer: str | None) -> tuple[Label, ...]:
    """The standing labels of ``path``; only ``reviewer``'s when one is named (none of theirs is an error)."""
    from tracegrade.atif.agreement import of_reviewer, read_labels

    labels = read_labels(path)
    if reviewer is None:
        return labels
    chosen = of_reviewer(labels, reviewer)
    if not chosen:
        named = sorted({label.reviewer for label in labels if label.reviewer is not None})
        raise InputError(f"{path}: no labels by reviewer {reviewer!r} (reviewers there: {', '.join(named) or 'none'})")
    return chosen


def _score_localisations(found: list[tuple[str, LocalisationResults]], given: tuple[Label, ...], labels: Path,
                         target: Path, resamples: int, level: float, seed: int, quiet: bool,
                         results: EvaluationResults | None = None) -> None:
    from tracegrade._io import write_atomic
    from tracegrade.atif.agreement import measure_localisations
    from tracegrade.runs import dump_json

    scored = measure_localisations(found, given, labels_file=str(labels), resamples=resamples, level=level, seed=seed,
                                   results=results)
    try:
        write_atomic(target, dump_json(scored.model_dump(mode="json")))
    except OSError as exc:
        raise OutputError(f"{target}: cannot write the localisation agreement ({type(exc).__name__})") from None
    if not quiet:
        _print_localisations(scored, target)


def _print_localisations(scored: LocalisationAgreement, target: Path) -> None:
    from tracegrade.render import Column, fit_table

    rows = []
    for strategy in scored.strategies:
        for measure, estimate in (("agent", strategy.agent), ("step", strategy.step), ("within ±1", strategy.within_1),
                                  ("within ±3", strategy.within_3)):
            bounds = (estimate.low, estimate.high)
            interval = "—" if None in bounds else f"{estimate.low:.3f}–{estimate.high:.3f}"
            rows.append({"strategy": strategy.strategy, "measure": measure, "n": estimate.n, "value": estimate.value,
                         "interval": interval, "note": estimate.reason or ""})
    columns = [
        Column("Strategy", "strategy", min_width=14),
        Column("Measure", "measure", min_width=9, max_width=9),
        Column("n", "n", min_width=3, justify="right"),
        Column("Value", "value", min_width=6, justify="right"),
        Column("Interval", "interval", min_width=13, priority=1),
        Column("Note", "note", min_width=longest_word(rows, "note", 8, 16), priority=2, wrap=True),
    ]
    console = Console(highlight=False)
    console.print(fit_table(f"Localisation against {scored.labels} decisive-step labels ({scored.level:.0%} intervals)",
                            columns, rows))
    console.print(f"-> {target}", markup=False)


def _print_summary(report: AgreementReport, target: Path, page: Path) -> None:
    from tracegrade.atif.agreement import agreement_rows, issue_rows
    from tracegrade.render import Column, fit_table

    console = Console(highlight=False)
    rows = agreement_rows(report)
    columns = [
        Column("Level", "level", min_width=10, max_width=10),
        Column("Measure", "measure", min_width=15, max_width=15),
        Column("n", "n", min_width=3, justify="right"),
        Column("Value", "value", min_width=6, justify="right"),
        Column("Interval", "interval", min_width=13, priority=1),
        Column("Note", "note", min_width=longest_word(rows, "note", 12, 16), priority=2, wrap=True),
    ]
    level = f"{report.level * 100:g}%"
    console.print(fit_table(f"Agreement with {report.matched} of {report.labels} labels ({level} intervals)",
                            columns, rows))
    if report.unmatched:
        issues = issue_rows(report.unmatched)
        console.print(
            fit_table(
                f"{len(issues)} label(s) match nothing in the run",
                [
                    Column("Line", "line", min_width=4, justify="right"),
                    Column("Names", "target", min_width=20),
                    Column("Reason", "reason", min_width=longest_word(issues, "reason", 12, 16), wrap=True),
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
