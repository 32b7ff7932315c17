"""Front door 1: the ATIF trajectory judge.

Reading (v1.0-v1.8 trajectory trees, continuations, safe file references), criteria sources (auto,
benchmark, reference, custom), evidence and prompts, the scoring engine, tree maths, results, merge
and the run-folder report::

    loaded = load_trajectories(["runs/"], LoadOptions())
    results = await score_loaded(loaded, options, criteria, judge, JobContext(job_id="tg-1"))
    found = await localise_loaded(loaded, LocaliseOptions(strategy=Strategy.BINARY_SEARCH), judge, job_id="tg-2")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif._batch import BATCH_STATE_NAME as BATCH_STATE_NAME
    from tracegrade.atif._batch import BatchOptions as BatchOptions
    from tracegrade.atif._batch import Exported as Exported
    from tracegrade.atif._batch import cancel_batches as cancel_batches
    from tracegrade.atif._batch import run_batch_job as run_batch_job
    from tracegrade.atif._batch import run_localise_batch as run_localise_batch
    from tracegrade.atif._dry_run import dry_run_document as dry_run_document
    from tracegrade.atif._dry_run import dry_run_job as dry_run_job
    from tracegrade.atif._job import JudgeTarget as JudgeTarget
    from tracegrade.atif._job import judge_settings as judge_settings
    from tracegrade.atif._job import run_atif_job as run_atif_job
    from tracegrade.atif._localise import LocaliseInputs as LocaliseInputs
    from tracegrade.atif._localise import localise_inputs as localise_inputs
    from tracegrade.atif._localise import localise_options as localise_options
    from tracegrade.atif._localise import localise_paths as localise_paths
    from tracegrade.atif._localise import read_localisation as read_localisation
    from tracegrade.atif._localise import run_localise_job as run_localise_job
    from tracegrade.atif._localise import write_localisation as write_localisation
    from tracegrade.atif._pairwise import PairwiseOutcome as PairwiseOutcome
    from tracegrade.atif._pairwise import compare_pairwise as compare_pairwise
    from tracegrade.atif._pairwise import run_pairwise as run_pairwise
    from tracegrade.atif._run import JobContext as JobContext
    from tracegrade.atif._run import score_loaded as score_loaded
    from tracegrade.atif._run import score_paths as score_paths
    from tracegrade.atif.agreement._agree import measure_agreement as measure_agreement
    from tracegrade.atif.agreement._labels import Label as Label
    from tracegrade.atif.agreement._labels import of_reviewer as of_reviewer
    from tracegrade.atif.agreement._labels import read_labels as read_labels
    from tracegrade.atif.agreement._records import AgreementReport as AgreementReport
    from tracegrade.atif.agreement._report import agreement_rows as agreement_rows
    from tracegrade.atif.agreement._report import issue_rows as issue_rows
    from tracegrade.atif.agreement._report import render_agreement as render_agreement
    from tracegrade.atif.agreement._strategies import LocalisationAgreement as LocalisationAgreement
    from tracegrade.atif.agreement._strategies import measure_localisations as measure_localisations
    from tracegrade.atif.asking._prompts import PROMPT_VERSION as PROMPT_VERSION
    from tracegrade.atif.criteria._params import CriteriaParams as CriteriaParams
    from tracegrade.atif.importing._inspect import import_inspect as import_inspect
    from tracegrade.atif.importing._otel import import_otel as import_otel
    from tracegrade.atif.importing._output import ImportReport as ImportReport
    from tracegrade.atif.importing._output import ImportResult as ImportResult
    from tracegrade.atif.importing._whowhen import import_whowhen as import_whowhen
    from tracegrade.atif.localising._localise import localise_loaded as localise_loaded
    from tracegrade.atif.localising._params import LocaliseOptions as LocaliseOptions
    from tracegrade.atif.localising._params import Strategy as Strategy
    from tracegrade.atif.localising._records import LocalisationResults as LocalisationResults
    from tracegrade.atif.localising._records import TrajectoryLocalisation as TrajectoryLocalisation
    from tracegrade.atif.output._artifacts import open_run_folder as open_run_folder
    from tracegrade.atif.output._artifacts import read_results as read_results
    from tracegrade.atif.output._artifacts import write_artifacts as write_artifacts
    from tracegrade.atif.output._compare import AtifComparison as AtifComparison
    from tracegrade.atif.output._compare import ComparisonOutcome as ComparisonOutcome
    from tracegrade.atif.output._compare import compare_runs as compare_runs
    from tracegrade.atif.output._compare_options import ComparisonOptions as ComparisonOptions
    from tracegrade.atif.output._comparison_view import comparison_lines as comparison_lines
    from tracegrade.atif.output._comparison_view import render_comparison as render_comparison
    from tracegrade.atif.output._comparison_view import write_comparison as write_comparison
    from tracegrade.atif.output._judges import JudgeComparison as JudgeComparison
    from tracegrade.atif.output._judges import JudgesOutcome as JudgesOutcome
    from tracegrade.atif.output._judges import compare_judges as compare_judges
    from tracegrade.atif.output._judges_view import judges_lines as judges_lines
    from tracegrade.atif.output._judges_view import write_judges as write_judges
    from tracegrade.atif.output._merge import merge_results as merge_results
    from tracegrade.atif.output._pairwise import PairwiseComparison as PairwiseComparison
    from tracegrade.atif.output._pairwise import pairwise_lines as pairwise_lines
    from tracegrade.atif.output._pairwise import write_pairwise as write_pairwise
    from tracegrade.atif.output._report import render_report as render_report
    from tracegrade.atif.output._sides import GUARDED_FIELDS as GUARDED_FIELDS
    from tracegrade.atif.reading._load import LISTED_PROBLEMS as LISTED_PROBLEMS
    from tracegrade.atif.reading._load import load_trajectories as load_trajectories
    from tracegrade.atif.reading._options import LoadOptions as LoadOptions
    from tracegrade.atif.reading._records import FileReport as FileReport
    from tracegrade.atif.reading._records import InputAccount as InputAccount
    from tracegrade.atif.reading._records import LoadResult as LoadResult
    from tracegrade.atif.reading._records import TrajectoryNode as TrajectoryNode
    from tracegrade.atif.reading._records import iter_nodes as iter_nodes
    from tracegrade.atif.reviewing._queue import ReviewOrder as ReviewOrder
    from tracegrade.atif.reviewing._run import read_review_run as read_review_run
    from tracegrade.atif.reviewing._server import serve_review as serve_review
    from tracegrade.atif.reviewing._state import ReviewSettings as ReviewSettings
    from tracegrade.atif.reviewing._state import ReviewState as ReviewState
    from tracegrade.atif.scoring._engine import RunProgress as RunProgress
    from tracegrade.atif.scoring._engine import ScoringEngine as ScoringEngine
    from tracegrade.atif.scoring._maths import SubagentAggregation as SubagentAggregation
    from tracegrade.atif.scoring._params import CriteriaInputs as CriteriaInputs
    from tracegrade.atif.scoring._params import PartialResultPolicy as PartialResultPolicy
    from tracegrade.atif.scoring._params import ScoringOptions as ScoringOptions
    from tracegrade.atif.scoring._params import parse_parameters as parse_parameters
    from tracegrade.atif.scoring._records import NodeResult as NodeResult
    from tracegrade.atif.scoring._records import RunSummary as RunSummary
    from tracegrade.atif.scoring._records import StepResult as StepResult
    from tracegrade.atif.scoring._records import StepStatus as StepStatus
    from tracegrade.atif.scoring._results import EvaluationResults as EvaluationResults

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
