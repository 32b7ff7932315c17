"""A validated dataset: its suites with their cases resolved, read as columns and fingerprinted."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import msgspec
from pydantic import TypeAdapter

from tracegrade.suites.reading._columns import CaseColumns
from tracegrade.suites.reading._json import canonical
from tracegrade.suites.reading._models import Case, Metric

__all__ = ["Dataset", "LazyCases", "SuiteSpec", "sha256_json"]


def sha256_json(value: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical(value)).hexdigest()


_CASE_LIST = TypeAdapter(list[Case])


class LazyCases(Sequence[Case]):
    """Cases that validated, as models made on first use (loading and scoring read their columns).

    ``raw`` is the cases as JSON, or as the msgspec records a case file was decoded into.
    """

    __slots__ = ("_models", "_raw")

    def __init__(self, raw: Sequence[Any]) -> None:
        self._raw = raw
        self._models: tuple[Case, ...] | None = None

    def models(self) -> tuple[Case, ...]:
        """Every case as a model."""
        if self._models is None:
            raw = self._raw
            cases = msgspec.to_builtins(raw) if raw and isinstance(raw[0], msgspec.Struct) else raw
            self._models = tuple(_CASE_LIST.validate_python(cases))
        return self._models

    def __len__(self) -> int:
        return len(self._raw)

    @overload
    def __getitem__(self, index: int) -> Case: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Case]: ...

    def __getitem__(self, index: int | slice) -> Case | Sequence[Case]:
        return self.models()[index]

    def __iter__(self) -> Iterator[Case]:
        return iter(self.models())

    def __eq__(self, other: object) -> bool:
        """Equal to a sequence of the same cases (as a tuple of the models would be)."""
        if isinstance(other, LazyCases):
            other = other.models()
        return isinstance(other, tuple) and self.models() == other

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class SuiteSpec:
    """A validated suite with its cases resolved and its fingerprint computed."""

    name: str
    workflow: str
    flow: str | None
    step: str | None
    cases: Sequence[Case]
    """The cases as models (made on first use when the dataset was loaded: scoring reads ``columns``)."""
    metrics: tuple[Metric, ...]
    revision: str
    """The dataset revision."""
    columns: CaseColumns = field(repr=False, compare=False)
    """The cases column by column: ids, inputs, expectation layouts and golds."""
    fingerprint: str = field(init=False)
    """SHA-256 over suite name, dataset revision and case identities."""
    case_digests: tuple[tuple[str, str], ...] = field(init=False, repr=False, compare=False)
    """Each case's ``(input_sha256, expectations_sha256)``: SHA-256 of the canonical JSON of each part."""

    def __post_init__(self) -> None:
        columns = self.columns
        # The fingerprint is sha256_json({"suite", "revision", "cases"}) of the cases as JSON; its canonical
        # bytes are put together from each case's parts (sorted keys: expectations, id, input).
        whole = hashlib.sha256(b'{"cases":[')
        digests = []
        for number, (case_id, case_input) in enumerate(zip(columns.ids, columns.inputs, strict=True)):
            given, expectations = canonical(case_input), columns.expectations_canonical(number)
            whole.update(b'%s{"expectations":%s,"id":%s,"input":%s}' % (
                b"," if number else b"", expectations, canonical(case_id), given))
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
