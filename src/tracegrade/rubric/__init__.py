"""Criteria and rubrics: the models, their limits and safe YAML/JSON parsing (shared by every front door)."""

from tracegrade.rubric._custom import CUSTOM_RUBRIC_MAX_BYTES, CUSTOM_SOURCES
from tracegrade.rubric._models import (
    MAX_CRITERIA,
    MAX_DESCRIPTION_CHARS,
    Aggregation,
    Criterion,
    Rubric,
    ScoringMode,
    aggregate,
)
from tracegrade.rubric._shape import rubric_from_data
from tracegrade.rubric._yaml import parse_rubric_text

__all__ = [
    "CUSTOM_RUBRIC_MAX_BYTES",
    "CUSTOM_SOURCES",
    "MAX_CRITERIA",
    "MAX_DESCRIPTION_CHARS",
    "Aggregation",
    "Criterion",
    "Rubric",
    "ScoringMode",
    "aggregate",
    "parse_rubric_text",
    "rubric_from_data",
]
