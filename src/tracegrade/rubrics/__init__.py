"""Criteria and rubrics from four sources: auto, benchmark, reference and custom.

Validate a job's parameters once with :func:`validate_criteria_params`, build one
:class:`CriteriaResolver` with :func:`build_resolver`, then ``await resolver.resolve(node)``
for each trajectory node: it returns :class:`ResolvedCriteria` (the rubric plus provenance)
or a :class:`CriteriaFailure` that fails only that node.
"""

from tracegrade.rubrics._benchmarks import (
    BENCHMARK_REGISTRY,
    BENCHMARK_REGISTRY_VERSION,
    BENCHMARK_RUBRIC_NOTE,
    benchmark_rubric,
    canonical_benchmark_name,
)
from tracegrade.rubrics._custom import CUSTOM_RUBRIC_MAX_BYTES, CUSTOM_SOURCES
from tracegrade.rubrics._models import (
    MAX_CRITERIA,
    MAX_DESCRIPTION_CHARS,
    Aggregation,
    Criterion,
    Rubric,
    ScoringMode,
    aggregate,
)
from tracegrade.rubrics._params import (
    CRITERIA_PARAMETERS,
    DEFAULT_REFERENCE_RUBRIC,
    CriteriaParams,
    validate_criteria_params,
)
from tracegrade.rubrics._reference import (
    DEFAULT_REFERENCE_ID,
    REFERENCE_REGISTRY_MAX_BYTES,
    ReferenceChoice,
    ReferenceRubric,
    load_reference_rubric,
)
from tracegrade.rubrics._resolver import CriteriaResolver, DeriveCriteria, build_resolver
from tracegrade.rubrics._results import CriteriaFailure, CriteriaFailureCode, ResolvedCriteria
from tracegrade.rubrics._shape import rubric_from_data
from tracegrade.rubrics._task import normalize_task, resolve_task, task_hash
from tracegrade.rubrics._yaml import parse_rubric_text

__all__ = [
    "BENCHMARK_REGISTRY",
    "BENCHMARK_REGISTRY_VERSION",
    "BENCHMARK_RUBRIC_NOTE",
    "CRITERIA_PARAMETERS",
    "CUSTOM_RUBRIC_MAX_BYTES",
    "CUSTOM_SOURCES",
    "DEFAULT_REFERENCE_ID",
    "DEFAULT_REFERENCE_RUBRIC",
    "MAX_CRITERIA",
    "MAX_DESCRIPTION_CHARS",
    "REFERENCE_REGISTRY_MAX_BYTES",
    "Aggregation",
    "CriteriaFailure",
    "CriteriaFailureCode",
    "CriteriaParams",
    "CriteriaResolver",
    "Criterion",
    "DeriveCriteria",
    "ReferenceChoice",
    "ReferenceRubric",
    "ResolvedCriteria",
    "Rubric",
    "ScoringMode",
    "aggregate",
    "benchmark_rubric",
    "build_resolver",
    "canonical_benchmark_name",
    "load_reference_rubric",
    "normalize_task",
    "parse_rubric_text",
    "resolve_task",
    "rubric_from_data",
    "task_hash",
    "validate_criteria_params",
]
