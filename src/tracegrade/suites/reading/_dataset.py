"""The dataset format: a manifest of suites, cases with gold expectations, and metrics."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import InitVar, dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

from tracegrade.suites.reading._json import canonical

__all__ = [
    "MAX_CASE_ID_CHARS",
    "MAX_DATASET_BYTES",
    "MAX_DATASET_TOTAL_BYTES",
    "MAX_EXPECTATIONS",
    "MAX_METRICS",
    "MAX_SUITES",
    "Case",
    "CaseInput",
    "Dataset",
    "Expectation",
    "Manifest",
    "Metric",
    "MetricKind",
    "SuiteEntry",
    "SuiteSpec",
    "case_json",
    "sha256_json",
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


def sha256_json(value: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical(value)).hexdigest()


_CASE_LIST = TypeAdapter(list[Case])


def case_json(raw: dict[str, Any]) -> dict[str, Any]:
    """What ``Case.model_validate(raw).model_dump(mode="json")`` gives, from ``raw`` (which must validate).

    Strict validation keeps every value as it was read, so the dump is the raw case with its keys in field
    order and the defaults spelled out; filling them in costs about two thirds of dumping the models.
    ``tests/suites/reading/test_dataset.py`` holds it to the models' fields and defaults.
    """
    given = raw["input"]
    return {"id": raw["id"], "input": {"payload": given["payload"], "metadata": given.get("metadata")},
            "expectations": [{"name": e["name"], "path": e["path"], "expected": e["expected"],
                              "comparison": e.get("comparison", "exact"), "each": e.get("each"),
                              "absent_as_null": e.get("absent_as_null", False)} for e in raw["expectations"]]}


@dataclass(frozen=True, slots=True)
class SuiteSpec:
    """A validated suite with its cases resolved and its fingerprint computed."""

    name: str
    workflow: str
    flow: str | None
    step: str | None
    cases: tuple[Case, ...]
    metrics: tuple[Metric, ...]
    revision: str
    """The dataset revision."""
    raw_cases: InitVar[Sequence[dict[str, Any]] | None] = None
    """The cases as read, which validated into ``cases`` (their JSON is then filled in, not dumped again)."""
    fingerprint: str = field(init=False)
    """SHA-256 over suite name, dataset revision and case identities."""
    case_json: tuple[dict[str, Any], ...] = field(init=False, repr=False, compare=False)
    """Each case as canonical JSON-ready data (defaults spelled out)."""
    case_digests: tuple[tuple[str, str], ...] = field(init=False, repr=False, compare=False)
    """Each case's ``(input_sha256, expectations_sha256)``: SHA-256 of the canonical JSON of each part."""

    def __post_init__(self, raw_cases: Sequence[dict[str, Any]] | None) -> None:
        cases = tuple(_CASE_LIST.dump_python(list(self.cases), mode="json")) if raw_cases is None else \
            tuple(case_json(raw) for raw in raw_cases)
        object.__setattr__(self, "case_json", cases)
        # The fingerprint is sha256_json({"suite", "revision", "cases"}); its canonical bytes are put together
        # from each case's parts (sorted keys: expectations, id, input), so each part is encoded once.
        whole = hashlib.sha256(b'{"cases":[')
        digests = []
        for number, case in enumerate(cases):
            given, expectations = canonical(case["input"]), canonical(case["expectations"])
            whole.update(b'%s{"expectations":%s,"id":%s,"input":%s}' % (
                b"," if number else b"", expectations, canonical(case["id"]), given))
            digests.append((hashlib.sha256(given).hexdigest(), hashlib.sha256(expectations).hexdigest()))
        whole.update(b'],"revision":%s,"suite":%s}' % (canonical(self.revision), canonical(self.name)))
        object.__setattr__(self, "case_digests", tuple(digests))
        object.__setattr__(self, "fingerprint", whole.hexdigest())

    @property
    def targets(self) -> dict[str, str | None]:
        """The requested scope: ``target_workflow``, ``target_flow``, ``target_step``."""
        return {"target_workflow": self.workflow, "target_flow": self.flow, "target_step": self.step}


@dataclass(frozen=True, slots=True)
class Dataset:
    """A validated dataset."""

    name: str
    revision: str
    path: str
    suites: tuple[SuiteSpec, ...]

    def suite(self, name: str) -> SuiteSpec | None:
        """The suite called ``name``, if any."""
        return next((suite for suite in self.suites if suite.name == name), None)
