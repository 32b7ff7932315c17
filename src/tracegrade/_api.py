"""The small public API: read ATIF trajectories, grade them with a judge."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracegrade.atif import EvaluationResults, LoadResult, LocalisationResults

__all__ = ["grade_trajectories", "load_trajectories", "localise_failures"]


def load_trajectories(paths: Sequence[str | Path], *, strict: bool = True) -> LoadResult:
    """Read ATIF files and folders into trajectory trees, with an account of every input.

    Args:
        paths: Files (``.json``, ``.jsonl``) or folders (read recursively).
        strict: An invalid file is an error (True) or is recorded and skipped (False).

    Raises:
        InputError: an input is unusable; the message names the file and the place in it.
    """
    from tracegrade.atif import LoadOptions
    from tracegrade.atif import load_trajectories as load

    return load(list(paths), LoadOptions(strict=strict))


def grade_trajectories(
    paths: Sequence[str | Path],
    *,
    judge_url: str | None = None,
    judge_model: str | None = None,
    judge_api_key_env: str | None = None,
    local_judge: bool = False,
    output: str | Path | None = None,
    cache: str | Path | None = None,
    job_id: str = "tracegrade",
    **parameters: Any,
) -> EvaluationResults:
    """Score every step of the trajectories in ``paths`` with an LLM judge (as ``tracegrade judge`` does).

    Args:
        paths: ATIF files or folders.
        judge_url: OpenAI-compatible base URL of the judge.
        judge_model: The judge model's name.
        judge_api_key_env: Name of the environment variable holding the API key (never the key).
        local_judge: Use the embedded llama.cpp + Gemma 3 270M judge (``tracegrade[local-judge]``).
        output: Run folder to write the artifacts into (none when omitted).
        cache: Judge cache file (none when omitted).
        job_id: The job's id in the results.
        **parameters: Any job parameter of :class:`tracegrade.atif.ScoringOptions` or
            :class:`tracegrade.atif.CriteriaInputs` (``scoring_mode``, ``concurrency_limit``...).

    Raises:
        ConfigError: a parameter is invalid.
        InputError: an input file is unusable.
        JudgeError: the judge could not be used.
    """
    import asyncio

    from tracegrade.atif import JobContext, JudgeTarget, parse_parameters, run_atif_job
    from tracegrade.atif.output import open_run_folder

    parameters["trajectory_path"] = ":".join(str(p) for p in paths)
    options, criteria = parse_parameters(parameters)
    target = JudgeTarget(local=True) if local_judge else JudgeTarget(judge_url, judge_model, judge_api_key_env)
    folder = open_run_folder(Path(output), job_id) if output is not None else None
    results, _ = asyncio.run(run_atif_job(
        list(paths), options, criteria, target, JobContext(job_id), out_dir=folder,
        cache_path=Path(cache) if cache is not None else None,
    ))
    return results


def localise_failures(
    paths: Sequence[str | Path],
    *,
    judge_url: str | None = None,
    judge_model: str | None = None,
    judge_api_key_env: str | None = None,
    local_judge: bool = False,
    output: str | Path | None = None,
    cache: str | Path | None = None,
    job_id: str = "tracegrade-localise",
    **parameters: Any,
) -> LocalisationResults:
    """Name the decisive agent and step of each failed trajectory (as ``tracegrade localise`` does).

    Args:
        paths: ATIF files or folders, or one run folder of ``tracegrade judge`` (its failed roots are localised).
        judge_url: OpenAI-compatible base URL of the judge (not needed for ``strategy="from-scores"``).
        judge_model: The judge model's name.
        judge_api_key_env: Name of the environment variable holding the API key (never the key).
        local_judge: Use the embedded llama.cpp + Gemma 3 270M judge (``tracegrade[local-judge]``).
        output: Folder to write ``localisation.json`` into (none when omitted).
        cache: Judge cache file (none when omitted).
        job_id: The job's id in the results.
        **parameters: Any field of :class:`tracegrade.atif.LocaliseOptions` (``strategy``, ``with_ground_truth``,
            ``judge_repeats``, ``max_context_bytes``...).

    Raises:
        ConfigError: a parameter is invalid.
        InputError: an input file is unusable.
        JudgeError: the judge could not be used.
    """
    import asyncio

    from tracegrade.atif import JudgeTarget, localise_inputs, localise_options, run_localise_job, write_localisation

    options = localise_options(parameters)
    inputs = localise_inputs([Path(p) for p in paths])
    asks = options.strategy.value != "from-scores"
    target = (JudgeTarget(local=True) if local_judge else JudgeTarget(judge_url, judge_model, judge_api_key_env)
              ) if asks else None
    results = asyncio.run(run_localise_job(inputs, options, target, job_id=job_id,
                                           cache_path=Path(cache) if cache is not None else None))
    if output is not None:
        write_localisation(results, Path(output), inputs)
    return results
