"""One localisation job with I/O: trajectories or a judge run in, ``localisation.json`` out.

Given a judge run, its report also gains the localisation section.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tracegrade._io import write_atomic
from tracegrade.atif._job import JudgeTarget, effective_options, open_judge
from tracegrade.atif.agreement._records import AgreementReport
from tracegrade.atif.localising._localise import localise_loaded
from tracegrade.atif.localising._params import LocaliseOptions, Strategy
from tracegrade.atif.localising._records import LocalisationResults
from tracegrade.atif.output._artifacts import read_results
from tracegrade.atif.output._report import render_report
from tracegrade.atif.reading._load import load_trajectories
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import InputError, OutputError, invalid_parameter
from tracegrade.judge import JudgeProtocol, JudgeTelemetry
from tracegrade.runs import JobStatus, RunFolder, amend_manifest, dump_json

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider

__all__ = ["INCOMPLETE_NAME", "LOCALISATION_NAME", "LocaliseInputs", "is_complete", "localise_inputs",
           "localise_options", "localise_paths", "read_localisation", "run_localise_job", "write_localisation"]

LOCALISATION_NAME = "localisation.json"
INCOMPLETE_NAME = "localisation.incomplete.json"
"""Where a localisation into a judge run that did not finish goes, beside the run's own (which it never replaces)."""


@dataclass(frozen=True, slots=True)
class LocaliseInputs:
    """What a localisation reads: trajectory paths, and the judge run they came from when one was given."""

    paths: tuple[Path, ...]
    run: EvaluationResults | None = None
    run_folder: Path | None = None
    """The judge run's folder (its report gains the localisation section)."""

    def source(self) -> dict[str, object]:
        """The inputs as recorded in ``localisation.json``."""
        recorded: dict[str, object] = {"paths": [str(p) for p in self.paths]}
        if self.run is not None:
            recorded["run"] = {"folder": str(self.run_folder), "job_id": self.run.job_id}
        return recorded


def localise_options(parameters: Mapping[str, Any]) -> LocaliseOptions:
    """Validate localisation parameters (None values left out) before anything is read or asked.

    Raises:
        ConfigError: naming the parameter and the rule it breaks.
    """
    try:
        return LocaliseOptions.model_validate({k: v for k, v in parameters.items() if v is not None})
    except ValidationError as exc:
        raise invalid_parameter(exc) from None


def localise_inputs(given: Sequence[Path]) -> LocaliseInputs:
    """Trajectory paths as given, or, for one judge run folder (or its results file), the trajectories it scored.

    Raises:
        InputError: the run's results are unusable or its trajectories are gone.
    """
    if len(given) != 1 or not _is_run(given[0]):
        return LocaliseInputs(tuple(given))
    run = read_results(given[0])
    folder = given[0] if given[0].is_dir() else given[0].parent
    paths = tuple(Path(p) for p in run.parameters.trajectory_path.split(os.pathsep) if p)
    for path in paths:
        if not path.exists():
            raise InputError(f"{given[0]}: the trajectories it scored are not at {path} any more")
    return LocaliseInputs(paths, run, folder)


def _agreement_in(folder: Path) -> AgreementReport | None:
    """The agreement report ``tracegrade agree`` left in a run folder, so that its report section stays."""
    file = folder / "agreement.json"
    try:
        return AgreementReport.model_validate_json(file.read_bytes()) if file.is_file() else None
    except ValueError:
        return None


def read_localisation(path: Path) -> LocalisationResults:
    """Read a ``localisation.json`` (or the folder holding one).

    Raises:
        InputError: there is no such file, or it is not tracegrade's localisation (one line naming ``path``).
    """
    file = path / LOCALISATION_NAME if path.is_dir() else path
    try:
        return LocalisationResults.model_validate_json(file.read_bytes())
    except FileNotFoundError:
        raise InputError(f"{path}: no {LOCALISATION_NAME} there") from None
    except ValueError as exc:
        raise InputError(f"{path}: not a tracegrade {LOCALISATION_NAME} ({type(exc).__name__})") from None


def _is_run(path: Path) -> bool:
    return (path / "evaluation_results.json").is_file() if path.is_dir() else path.name == "evaluation_results.json"


async def localise_paths(inputs: LocaliseInputs, options: LocaliseOptions, judge: JudgeProtocol | None, *,
                         job_id: str, stop: asyncio.Event | None = None) -> LocalisationResults:
    """Load the inputs and localise them (no files written); ``stop`` as for :func:`localise_loaded`."""
    loaded = await asyncio.to_thread(load_trajectories, inputs.paths, LoadOptions())
    return await localise_loaded(loaded, options, judge, job_id=job_id, run=inputs.run, source=inputs.source(),
                                 stop=stop)


async def run_localise_job(inputs: LocaliseInputs, options: LocaliseOptions, target: JudgeTarget | None, *, job_id: str,
                           cache_path: Path | None, meter_provider: MeterProvider | None = None,
                           stop: asyncio.Event | None = None) -> LocalisationResults:
    """Localise with the judge at ``target`` (None for ``from-scores``, which asks nothing).

    Once ``stop`` is set, the localisations not finished are dropped and counted (``summary.interrupted``);
    every judge call that finished is in the judge cache, so a rerun pays only for the rest.
    """
    if target is None or options.strategy is Strategy.FROM_SCORES:
        return await localise_paths(inputs, options, None, job_id=job_id, stop=stop)
    options = effective_options(options, target)
    telemetry = JudgeTelemetry(meter_provider, prefix="atif", job_id=job_id)
    async with open_judge(target, options, cache_path=cache_path, telemetry=telemetry) as judge:
        return await localise_paths(inputs, options, judge, job_id=job_id, stop=stop)


def write_localisation(results: LocalisationResults, out: Path, inputs: LocaliseInputs) -> list[Path]:
    """``out/localisation.json`` with its manifest, or, when ``out`` is the judge run given, the run's own.

    With ``out`` elsewhere the judge run is not touched. Into the run itself only a complete localisation goes
    (none failed, none interrupted): its ``localisation.json`` and ``report.html`` are replaced and its
    manifest amended. An incomplete one never replaces them: it is kept beside them as
    ``localisation.incomplete.json`` (listed nowhere, read by nothing), so the run is never made worse.

    Raises:
        OutputError: a file cannot be written.
        ConfigError: ``out`` holds a run of another kind (a judge run that is not the one localised...).
    """
    data = dump_json(results.model_dump(mode="json"))
    run_folder = inputs.run_folder
    if inputs.run is None or run_folder is None or out.resolve() != run_folder.resolve():
        folder = RunFolder(out, kind="atif-localise", job_id=results.job_id)
        written = [folder.write_bytes(LOCALISATION_NAME, data)]
        status = JobStatus.INTERRUPTED if results.summary.interrupted else JobStatus.COMPLETED
        folder.finish(status, {"strategy": results.parameters.strategy.value})
        return written
    incomplete = run_folder / INCOMPLETE_NAME
    try:
        if not is_complete(results):
            write_atomic(incomplete, data)
            return [incomplete]
        write_atomic(run_folder / LOCALISATION_NAME, data)
        page = render_report(inputs.run, _agreement_in(run_folder), localisation=results)
        write_atomic(run_folder / "report.html", page.encode())
        incomplete.unlink(missing_ok=True)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise OutputError(f"{run_folder}: cannot write the localisation ({reason})") from None
    amend_manifest(run_folder, [LOCALISATION_NAME, "report.html"])
    return [run_folder / LOCALISATION_NAME, run_folder / "report.html"]


def is_complete(results: LocalisationResults) -> bool:
    """Whether every selected root was localised or found to have no decisive step (none failed or interrupted)."""
    return not results.summary.failed and not results.summary.interrupted
