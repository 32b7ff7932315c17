"""Criteria and rubrics: the closed set of named criteria a judge scores against."""

from __future__ import annotations

import hashlib
import math
from enum import StrEnum
from typing import Annotated

import orjson
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, field_validator, model_validator

__all__ = [
    "MAX_CRITERIA",
    "MAX_DESCRIPTION_CHARS",
    "Aggregation",
    "Criterion",
    "Rubric",
    "ScoringMode",
    "aggregate",
]

MAX_CRITERIA = 32
MAX_DESCRIPTION_CHARS = 2000


class Aggregation(StrEnum):
    """How per-criterion scores combine into one step score."""

    WEIGHTED_MEAN = "weighted_mean"
    MEAN = "mean"
    MINIMUM = "minimum"


class ScoringMode(StrEnum):
    """Where a job's criteria come from (the ``scoring_mode`` parameter)."""

    AUTO = "auto"
    """The judge derives criteria from each trajectory's task."""
    BENCHMARK = "benchmark"
    """A built-in benchmark rubric (``benchmark_name``)."""
    REFERENCE = "reference"
    """A rubric and expected answers from a local registry file (``reference_registry_path``)."""
    CUSTOM = "custom"
    """A user-supplied rubric (``provider_params.rubric``, ``custom_rubric`` or ``custom_rubric_path``)."""


class Criterion(BaseModel):
    """One named criterion with a positive, finite weight."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Annotated[str, Field(min_length=1, max_length=MAX_DESCRIPTION_CHARS)]
    """Unique, non-empty identifier the judge must echo back."""
    description: Annotated[str, Field(min_length=1, max_length=MAX_DESCRIPTION_CHARS)]
    """What the criterion asks of a step."""
    weight: StrictFloat | StrictInt = 1.0
    """Positive, finite weight (booleans are refused)."""

    @field_validator("name", "description")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        stripped = value.strip()
        if not stripped:
            raise ValueError("must not be blank")
        return stripped

    @field_validator("weight")
    @classmethod
    def _positive_finite(cls, value: float) -> float:
        if not math.isfinite(value) or value <= 0:
            raise ValueError("must be a positive finite number")
        return float(value)


class Rubric(BaseModel):
    """A named, versioned set of 1-32 uniquely named criteria plus an aggregation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "rubric"
    version: str = "1"
    criteria: Annotated[tuple[Criterion, ...], Field(min_length=1, max_length=MAX_CRITERIA)]
    aggregation: Aggregation = Aggregation.WEIGHTED_MEAN

    @model_validator(mode="after")
    def _unique_names(self) -> Rubric:
        seen: set[str] = set()
        for criterion in self.criteria:
            if criterion.name in seen:
                raise ValueError(f"duplicate criterion name {criterion.name!r}")
            seen.add(criterion.name)
        return self

    @property
    def names(self) -> frozenset[str]:
        """The closed set of criterion names the judge must return."""
        return frozenset(c.name for c in self.criteria)

    def normalized(self) -> list[dict[str, object]]:
        """Criteria as plain dicts in rubric order (what is persisted and hashed)."""
        return [c.model_dump() for c in self.criteria]

    @property
    def criteria_hash(self) -> str:
        """SHA-256 of the normalised criteria and aggregation."""
        payload = orjson.dumps(
            {"criteria": self.normalized(), "aggregation": self.aggregation.value},
            option=orjson.OPT_SORT_KEYS,
        )
        return hashlib.sha256(payload).hexdigest()

    def score(self, scores: dict[str, float]) -> float:
        """Combine validated per-criterion scores into one step score."""
        return aggregate(self, scores)


def aggregate(rubric: Rubric, scores: dict[str, float]) -> float:
    """Combine per-criterion scores (already validated to cover exactly the rubric) with its aggregation."""
    if set(scores) != rubric.names:
        raise ValueError("scores must cover exactly the rubric's criteria")
    if rubric.aggregation is Aggregation.MINIMUM:
        return min(scores.values())
    if rubric.aggregation is Aggregation.MEAN:
        return sum(scores.values()) / len(scores)
    # Weights are scaled by the largest one first, so every weight the validator accepts (up to
    # 1.8e308, down to 5e-324) lies in (0, 1]: the sums can neither overflow nor lose subnormals.
    heaviest = max(c.weight for c in rubric.criteria)
    shares = [(scores[c.name], c.weight / heaviest) for c in rubric.criteria]
    combined = math.fsum(s * w for s, w in shares) / math.fsum(w for _, w in shares)
    return min(max(combined, min(scores.values())), max(scores.values()))
