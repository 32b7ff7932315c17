"""Front door 1: the ATIF trajectory judge.

Reading (v1.0-v1.8 trajectory trees, continuations, safe file references), criteria sources (auto,
benchmark, reference, custom), evidence and prompts, the scoring engine, tree maths, results, merge
and the run-folder report::

    loaded = load_trajectories(["runs/"], LoadOptions())
    results = await score_loaded(loaded, options, criteria, judge, job_id="tg-1")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif._job import JudgeTarget, judge_settings, open_judge, run_atif_job
    from tracegrade.atif._run import run_parameters, score_loaded, score_paths
    from tracegrade.atif.agreement._agree import agreement
    from tracegrade.atif.agreement._labels import Label, read_labels
    from tracegrade.atif.agreement._records import AgreementReport
    from tracegrade.atif.asking._content import ObservationContent, StepContent, ToolCallContent, step_content
    from tracegrade.atif.asking._evidence import Evidence, build_evidence, project_step
    from tracegrade.atif.asking._prompts import (
        CATEGORIES,
        PROMPT_VERSION,
        SYSTEM_INSTRUCTION,
        categorize_request,
        derive_request,
        score_request,
        template_hash,
    )
    from tracegrade.atif.asking._questions import StepJudgement, categorize_step, derive_criteria, score_step
    from tracegrade.atif.asking._replies import (
        MAX_RATIONALE_CHARS,
        Categorization,
        DerivedCriteria,
        ScoreReply,
        parse_categorization,
        parse_criteria,
        parse_scores,
    )
    from tracegrade.atif.criteria._benchmark import (
        BENCHMARK_REGISTRY,
        BENCHMARK_REGISTRY_VERSION,
        BENCHMARK_RUBRIC_NOTE,
        benchmark_rubric,
        canonical_benchmark_name,
    )
    from tracegrade.atif.criteria._params import DEFAULT_REFERENCE_RUBRIC, CriteriaParams, validate_criteria_params
    from tracegrade.atif.criteria._reference import (
        DEFAULT_REFERENCE_ID,
        REFERENCE_REGISTRY_MAX_BYTES,
        ReferenceChoice,
        ReferenceRubric,
        load_reference_rubric,
    )
    from tracegrade.atif.criteria._resolver import CriteriaResolver, DeriveCriteria, build_resolver
    from tracegrade.atif.criteria._sources import CriteriaFailure, CriteriaFailureCode, ResolvedCriteria
    from tracegrade.atif.importing._whowhen import import_whowhen
    from tracegrade.atif.output._artifacts import (
        ARTIFACT_NAMES,
        open_run_folder,
        read_results,
        step_rows,
        write_artifacts,
    )
    from tracegrade.atif.output._merge import merge_results
    from tracegrade.atif.output._report import render_report
    from tracegrade.atif.reading._checks import check_trajectory
    from tracegrade.atif.reading._document import validate_document
    from tracegrade.atif.reading._load import load_trajectories
    from tracegrade.atif.reading._options import LoadOptions
    from tracegrade.atif.reading._records import (
        FileReport,
        InputAccount,
        InputStatus,
        LoadResult,
        LogicalStep,
        NodeStatus,
        TrajectoryNode,
        iter_nodes,
    )
    from tracegrade.atif.reading._task import normalize_task, resolve_task, task_hash
    from tracegrade.atif.scoring._assemble import node_results, summarize
    from tracegrade.atif.scoring._engine import NodeState, RunProgress, ScoringEngine
    from tracegrade.atif.scoring._maths import (
        NodeDraft,
        NodeRollup,
        SubagentAggregation,
        categorization_rate,
        collection_score,
        rollup,
    )
    from tracegrade.atif.scoring._params import CriteriaInputs, PartialResultPolicy, ScoringOptions, parse_parameters
    from tracegrade.atif.scoring._records import (
        CategorizationStatus,
        NodeResult,
        NodeStatusCode,
        RunSummary,
        StepResult,
        StepStatus,
    )
    from tracegrade.atif.scoring._repeat_records import RepeatSummary, StepRepeats
    from tracegrade.atif.scoring._repeats import repeat_seed
    from tracegrade.atif.scoring._results import RESULTS_FORMAT, EvaluationResults, InputRecord

_LAZY: dict[str, tuple[str, ...]] = {
    "agreement._records": ("AgreementReport",),
    "agreement._agree": ("agreement",),
    "agreement._labels": ("Label", "read_labels"),
    "scoring._repeat_records": ("RepeatSummary", "StepRepeats"),
    "scoring._repeats": ("repeat_seed",),
    "importing._whowhen": ("import_whowhen",),
    "output._artifacts": ("ARTIFACT_NAMES", "open_run_folder", "read_results", "step_rows", "write_artifacts"),
    "scoring._assemble": ("node_results", "summarize"),
    "criteria._benchmark": (
        "BENCHMARK_REGISTRY",
        "BENCHMARK_REGISTRY_VERSION",
        "BENCHMARK_RUBRIC_NOTE",
        "benchmark_rubric",
        "canonical_benchmark_name",
    ),
    "reading._checks": ("check_trajectory",),
    "asking._content": ("ObservationContent", "StepContent", "ToolCallContent", "step_content"),
    "criteria._sources": ("CriteriaFailure", "CriteriaFailureCode", "ResolvedCriteria"),
    "criteria._params": ("DEFAULT_REFERENCE_RUBRIC", "CriteriaParams", "validate_criteria_params"),
    "reading._document": ("validate_document",),
    "scoring._engine": ("NodeState", "RunProgress", "ScoringEngine"),
    "asking._evidence": ("Evidence", "build_evidence", "project_step"),
    "_job": ("JudgeTarget", "judge_settings", "open_judge", "run_atif_job"),
    "reading._load": ("load_trajectories",),
    "scoring._maths": ("NodeDraft", "NodeRollup", "SubagentAggregation", "categorization_rate", "collection_score", "rollup"),
    "output._merge": ("merge_results",),
    "reading._options": ("LoadOptions",),
    "scoring._params": ("CriteriaInputs", "PartialResultPolicy", "ScoringOptions", "parse_parameters"),
    "asking._prompts": (
        "CATEGORIES",
        "PROMPT_VERSION",
        "SYSTEM_INSTRUCTION",
        "categorize_request",
        "derive_request",
        "score_request",
        "template_hash",
    ),
    "asking._questions": ("StepJudgement", "categorize_step", "derive_criteria", "score_step"),
    "reading._records": (
        "FileReport",
        "InputAccount",
        "InputStatus",
        "LoadResult",
        "LogicalStep",
        "NodeStatus",
        "TrajectoryNode",
        "iter_nodes",
    ),
    "criteria._reference": (
        "DEFAULT_REFERENCE_ID",
        "REFERENCE_REGISTRY_MAX_BYTES",
        "ReferenceChoice",
        "ReferenceRubric",
        "load_reference_rubric",
    ),
    "asking._replies": (
        "MAX_RATIONALE_CHARS",
        "Categorization",
        "DerivedCriteria",
        "ScoreReply",
        "parse_categorization",
        "parse_criteria",
        "parse_scores",
    ),
    "output._report": ("render_report",),
    "criteria._resolver": ("CriteriaResolver", "DeriveCriteria", "build_resolver"),
    "scoring._results": ("RESULTS_FORMAT", "EvaluationResults", "InputRecord"),
    "_run": ("run_parameters", "score_loaded", "score_paths"),
    "scoring._records": ("CategorizationStatus", "NodeResult", "NodeStatusCode", "RunSummary", "StepResult", "StepStatus"),
    "reading._task": ("normalize_task", "resolve_task", "task_hash"),
}
"""Private module of each public name; a name is imported when first used (fast start-up)."""

__all__ = [
    "ARTIFACT_NAMES",
    "BENCHMARK_REGISTRY",
    "BENCHMARK_REGISTRY_VERSION",
    "BENCHMARK_RUBRIC_NOTE",
    "CATEGORIES",
    "DEFAULT_REFERENCE_ID",
    "DEFAULT_REFERENCE_RUBRIC",
    "MAX_RATIONALE_CHARS",
    "PROMPT_VERSION",
    "REFERENCE_REGISTRY_MAX_BYTES",
    "RESULTS_FORMAT",
    "SYSTEM_INSTRUCTION",
    "AgreementReport",
    "Categorization",
    "CategorizationStatus",
    "CriteriaFailure",
    "CriteriaFailureCode",
    "CriteriaInputs",
    "CriteriaParams",
    "CriteriaResolver",
    "DeriveCriteria",
    "DerivedCriteria",
    "EvaluationResults",
    "Evidence",
    "FileReport",
    "InputAccount",
    "InputRecord",
    "InputStatus",
    "JudgeTarget",
    "Label",
    "LoadOptions",
    "LoadResult",
    "LogicalStep",
    "NodeDraft",
    "NodeResult",
    "NodeRollup",
    "NodeState",
    "NodeStatus",
    "NodeStatusCode",
    "ObservationContent",
    "PartialResultPolicy",
    "ReferenceChoice",
    "ReferenceRubric",
    "RepeatSummary",
    "ResolvedCriteria",
    "RunProgress",
    "RunSummary",
    "ScoreReply",
    "ScoringEngine",
    "ScoringOptions",
    "StepContent",
    "StepJudgement",
    "StepRepeats",
    "StepResult",
    "StepStatus",
    "SubagentAggregation",
    "ToolCallContent",
    "TrajectoryNode",
    "agreement",
    "benchmark_rubric",
    "build_evidence",
    "build_resolver",
    "canonical_benchmark_name",
    "categorization_rate",
    "categorize_request",
    "categorize_step",
    "check_trajectory",
    "collection_score",
    "derive_criteria",
    "derive_request",
    "import_whowhen",
    "iter_nodes",
    "judge_settings",
    "load_reference_rubric",
    "load_trajectories",
    "merge_results",
    "node_results",
    "normalize_task",
    "open_judge",
    "open_run_folder",
    "parse_categorization",
    "parse_criteria",
    "parse_parameters",
    "parse_scores",
    "project_step",
    "read_labels",
    "read_results",
    "render_report",
    "repeat_seed",
    "resolve_task",
    "rollup",
    "run_atif_job",
    "run_parameters",
    "score_loaded",
    "score_paths",
    "score_request",
    "score_step",
    "step_content",
    "step_rows",
    "summarize",
    "task_hash",
    "template_hash",
    "validate_criteria_params",
    "validate_document",
    "write_artifacts",
]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
