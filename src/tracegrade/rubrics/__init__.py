"""Criteria and rubrics from four sources: auto, benchmark, reference and custom."""

from tracegrade.rubrics._models import (
    MAX_CRITERIA,
    MAX_DESCRIPTION_CHARS,
    Aggregation,
    Criterion,
    Rubric,
    aggregate,
)

__all__ = ["MAX_CRITERIA", "MAX_DESCRIPTION_CHARS", "Aggregation", "Criterion", "Rubric", "aggregate"]
