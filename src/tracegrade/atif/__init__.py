"""Front door 1: the ATIF trajectory judge.

Reading (v1.0-v1.8 trajectory trees, continuations, safe file references), criteria sources (auto,
benchmark, reference, custom), evidence and prompts, the scoring engine, tree maths, results, merge
and the run-folder report::

    loaded = load_trajectories(["runs/"], LoadOptions())
    results = await score_loaded(loaded, options, criteria, judge, JobContext(job_id="tg-1"))
    found = await localise_loaded(loaded, LocaliseOptions(strategy=Strategy.BINARY_SEARCH), judge, job_id="tg-2")

The judge's other ways to run (provider batch jobs, a dry run, pairwise) are in :mod:`tracegrade.atif.modes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif._job import JobOutcome as JobOutcome
    from tracegrade.atif._job import JudgeJob as JudgeJob
    from tracegrade.atif._job import JudgeRun as JudgeRun
    from tracegrade.atif._job import JudgeTarget as JudgeTarget
    from tracegrade.atif._job import otlp_meter_provider as otlp_meter_provider
    from tracegrade.atif._job import run_atif_job as run_atif_job
    from tracegrade.atif._job import run_judge_job as run_judge_job
    from tracegrade.atif._localise import LocaliseInputs as LocaliseInputs
    from tracegrade.atif._localise import localise_inputs as localise_inputs
    from tracegrade.atif._localise import localise_options as localise_options
    from tracegrade.atif._localise import localise_paths as localise_paths
    from tracegrade.atif._localise import read_localisation as read_localisation
    from tracegrade.atif._localise import run_localise_job as run_localise_job
    from tracegrade.atif._localise import write_localisation as write_localisation
    from tracegrade.atif._run import JobContext as JobContext
    from tracegrade.atif._run import score_loaded as score_loaded
    from tracegrade.atif._run import score_paths as score_paths
    from tracegrade.atif.agreement._agree import measure_agreement as measure_agreement
    from tracegrade.atif.agreement._records import AgreementReport as AgreementReport
    from tracegrade.atif.asking._prompts import PROMPT_VERSION as PROMPT_VERSION
    from tracegrade.atif.criteria._params import CriteriaParams as CriteriaParams
    from tracegrade.atif.localising._localise import localise_loaded as localise_loaded
    from tracegrade.atif.localising._params import LocaliseOptions as LocaliseOptions
    from tracegrade.atif.localising._params import Strategy as Strategy
    from tracegrade.atif.localising._records import LocalisationResults as LocalisationResults
    from tracegrade.atif.output._artifacts import read_results as read_results
    from tracegrade.atif.output._artifacts import write_artifacts as write_artifacts
    from tracegrade.atif.output._compare import AtifComparison as AtifComparison
    from tracegrade.atif.output._compare import compare_runs as compare_runs
    from tracegrade.atif.output._compare_options import ComparisonOptions as ComparisonOptions
    from tracegrade.atif.output._merge import merge_results as merge_results
    from tracegrade.atif.reading._load import load_trajectories as load_trajectories
    from tracegrade.atif.reading._options import LoadOptions as LoadOptions
    from tracegrade.atif.reading._records import LoadResult as LoadResult
    from tracegrade.atif.reading._records import TrajectoryNode as TrajectoryNode
    from tracegrade.atif.reading._records import iter_nodes as iter_nodes
    from tracegrade.atif.scoring._params import CriteriaInputs as CriteriaInputs
    from tracegrade.atif.scoring._params import ScoringOptions as ScoringOptions
    from tracegrade.atif.scoring._params import parse_parameters as parse_parameters
    from tracegrade.atif.scoring._results import EvaluationResults as EvaluationResults

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
