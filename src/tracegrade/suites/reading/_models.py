"""The dataset format as pydantic models: a manifest of suites, cases with gold expectations, and metrics."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

__all__ = [
    "MAX_CASE_ID_CHARS",
    "MAX_DATASET_BYTES",
    "MAX_DATASET_TOTAL_BYTES",
    "MAX_EXPECTATIONS",
    "MAX_METRICS",
    "MAX_SUITES",
    "Case",
    "CaseInput",
    "Expectation",
    "Manifest",
    "Metric",
    "MetricKind",
    "SuiteEntry",
]

MAX_DATASET_BYTES = 64 * 1024 * 1024
"""Largest manifest or case file read."""
MAX_DATASET_TOTAL_BYTES = 256 * 1024 * 1024
"""Most bytes the manifest and its case files take together."""
MAX_SUITES = 128
MAX_METRICS = 64
MAX_EXPECTATIONS = 1024
MAX_CASE_ID_CHARS = 512
MAX_LABELS = 1024

Name = Annotated[str, StringConstraints(min_length=1, max_length=256, pattern=r"\S")]
MetricKind = Literal["classification", "multilabel", "fields"]


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Expectation(_Closed):
    """One gold assertion about the result of a case."""

    name: Name
    """Unique within its case."""
    path: str
    """RFC 6901 pointer into the result (``""`` is the whole result)."""
    expected: Any = Field(...)
    """The gold value (required; may be null)."""
    comparison: Annotated[str, StringConstraints(min_length=1, max_length=128)] = "exact"
    """A built-in comparison, ``judge``, or a registered custom scorer name."""
    each: str | None = None
    """Relative pointer applied to every item of the array at ``path``."""
    absent_as_null: bool = False
    """Compare an absent member of an executed owner as JSON null."""


class CaseInput(_Closed):
    """What the system under test receives."""

    payload: Any = Field(...)
    """Any JSON value."""
    metadata: dict[str, Any] | None = None


class Case(_Closed):
    """One authored case: input plus gold expectations."""

    id: Annotated[str, StringConstraints(min_length=1, max_length=MAX_CASE_ID_CHARS)]
    input: CaseInput
    expectations: Annotated[list[Expectation], Field(min_length=1, max_length=MAX_EXPECTATIONS)]


class Metric(_Closed):
    """An aggregate measurement over the one matching expectation of each case."""

    name: Name
    path: str
    kind: MetricKind
    labels: Annotated[list[str | None], Field(min_length=1, max_length=MAX_LABELS)]
    """The declared catalog (field names for ``fields``); ``null`` only for classification."""
    each: str | None = None
    expectation: Name | None = None
    """The expectation name to measure when several share the path."""


class SuiteEntry(_Closed):
    """A suite as written in the manifest (cases inline or a case-file path)."""

    name: Name
    workflow: Name
    flow: Name | None = None
    step: Name | None = None
    cases: Any = Field(...)
    metrics: Annotated[list[Metric], Field(max_length=MAX_METRICS)] = []


class Manifest(_Closed):
    """The dataset manifest."""

    name: Name
    revision: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    suites: Annotated[list[SuiteEntry], Field(min_length=1, max_length=MAX_SUITES)]

