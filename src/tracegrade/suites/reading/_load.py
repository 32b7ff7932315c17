"""Reading and validating a dataset; every problem is named with its file and JSON-pointer place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from tracegrade._io import JsonProblem, loads
from tracegrade.errors import InputError
from tracegrade.runs import UnreadableFile, read_capped
from tracegrade.suites.reading._case_file import case_file_columns
from tracegrade.suites.reading._columns import CaseColumns, case_columns
from tracegrade.suites.reading._comparisons import ScorerRegistry
from tracegrade.suites.reading._dataset import Dataset, LazyCases, SuiteSpec
from tracegrade.suites.reading._models import MAX_DATASET_BYTES, MAX_DATASET_TOTAL_BYTES, Case, Manifest, SuiteEntry
from tracegrade.suites.reading._rules import cases_problems, metric_problems

__all__ = ["Problem", "check_dataset", "load_dataset"]

_CASES = TypeAdapter(list[Case])


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a dataset is invalid."""

    file: str
    where: str
    """A JSON pointer (``/suites/0/cases/2/id``) or ``line L, column C``."""
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.where or '/'}: {self.message}"


def load_dataset(path: Path, registry: ScorerRegistry | None = None) -> Dataset:
    """Read and validate a dataset.

    Raises:
        InputError: naming the file and place of the first problem (and how many more there are).
    """
    dataset, problems = check_dataset(path, registry)
    if problems or dataset is None:
        more = f" (and {len(problems) - 1} more; run `tracegrade suite check`)" if len(problems) > 1 else ""
        raise InputError(f"invalid dataset: {problems[0]}{more}", code="invalid_dataset")
    return dataset


def check_dataset(path: Path, registry: ScorerRegistry | None = None) -> tuple[Dataset | None, list[Problem]]:
    """Validate a dataset without running anything: the dataset (when valid) and every problem found."""
    registry = registry or ScorerRegistry()
    problems: list[Problem] = []
    budget = _Budget()
    data = _read_bytes(path, problems, budget)
    raw = _UNREADABLE if data is None else _decoded(path, data, problems)
    if raw is _UNREADABLE:
        return None, problems
    try:
        manifest = Manifest.model_validate(raw)
    except ValidationError as exc:
        return None, [*problems, *_pydantic_problems(str(path), "", exc)]
    suites = [_suite(path, index, entry, manifest.revision, registry, problems, budget)
              for index, entry in enumerate(manifest.suites)]
    _unique([entry.name for entry in manifest.suites], str(path), "/suites", "name", "suite name", problems)
    if problems:
        return None, problems
    resolved = tuple(suite for suite in suites if suite is not None)
    return Dataset(manifest.name, manifest.revision, str(path), resolved), problems


_UNREADABLE = object()
"""What a file that could not be read or decoded stands for (its problem is recorded); JSON ``null`` is None."""


@dataclass(slots=True)
class _Budget:
    """What the dataset's files may still take: MAX_DATASET_TOTAL_BYTES in all, a file read twice counted twice."""

    left: int = MAX_DATASET_TOTAL_BYTES


def _read_bytes(path: Path, problems: list[Problem], budget: _Budget, *,
                named_by: tuple[str, str, str] | None = None) -> bytes | None:
    """The file's bytes; None (with a problem) when it cannot be read.

    ``named_by`` (manifest, place, what) reports an unreadable file where the manifest names it, e.g. a suite's
    case file: ``dataset.json: /suites/0/cases: suite 'a': case file cases/x.json: cannot read: …``.
    """
    try:
        data = read_capped(path, min(MAX_DATASET_BYTES, budget.left))
    except UnreadableFile as exc:
        reason = exc.reason
        if exc.code == "too_large" and budget.left < MAX_DATASET_BYTES:
            reason = f"the dataset's files together are over the limit of {MAX_DATASET_TOTAL_BYTES} bytes"
        if named_by is None:
            problems.append(Problem(str(path), "", reason))
        else:
            problems.append(Problem(named_by[0], named_by[1], f"{named_by[2]}: {reason}"))
        return None
    budget.left -= len(data)
    return data


def _decoded(path: Path, data: bytes, problems: list[Problem]) -> Any:
    try:
        return loads(data)
    except JsonProblem as exc:
        problems.append(Problem(str(path), exc.where, exc.message))
        return _UNREADABLE


def _suite(manifest_path: Path, index: int, entry: SuiteEntry, revision: str, registry: ScorerRegistry,
           problems: list[Problem], budget: _Budget) -> SuiteSpec | None:
    base = f"/suites/{index}"
    found = len(problems)
    if entry.step is not None and entry.flow is None:
        problems.append(Problem(str(manifest_path), f"{base}/step", "a step target needs a flow target"))
    read = _cases(manifest_path, base, entry.cases, problems, budget, suite=entry.name)
    if read is None:
        return None
    cases, columns, file, where = read
    for number, place, message in cases_problems(columns, registry):
        problems.append(Problem(file, f"{where}/{number}{place}", message))
    _unique(list(columns.ids), file, where, "id", "case id", problems)
    for number, metric in enumerate(entry.metrics):
        for place, message in metric_problems(metric, columns):
            problems.append(Problem(str(manifest_path), f"{base}/metrics/{number}{place}", message))
    _unique([m.name for m in entry.metrics], str(manifest_path), f"{base}/metrics", "name", "metric name", problems)
    if len(problems) > found:
        return None
    return SuiteSpec(entry.name, entry.workflow, entry.flow, entry.step, cases, tuple(entry.metrics), revision,
                     columns)


Read = tuple[Sequence[Case], CaseColumns, str, str]
"""A suite's cases (models made on first use), their columns, and the file and place they were read from."""


def _cases(manifest_path: Path, base: str, value: Any, problems: list[Problem], budget: _Budget, *,
           suite: str) -> Read | None:
    if isinstance(value, str):
        if not value or Path(value).is_absolute():
            problems.append(Problem(str(manifest_path), f"{base}/cases", "case file must be a relative path"))
            return None
        case_path = manifest_path.parent / value
        if not _inside(case_path, manifest_path.parent):
            problems.append(Problem(str(manifest_path), f"{base}/cases",
                                    "case file must stay inside the dataset folder (no '..', no links out of it)"))
            return None
        named_by = (str(manifest_path), f"{base}/cases", f"suite {suite!r}: case file {value}")
        data = _read_bytes(case_path, problems, budget, named_by=named_by)
        if data is None:
            return None
        decoded = case_file_columns(data)
        if decoded is not None:  # every case is valid: no model and no JSON tree is made
            columns, records = decoded
            return LazyCases(records), columns, str(case_path), ""
        raw = _decoded(case_path, data, problems)
        if raw is _UNREADABLE:
            return None
        return _validate_cases(raw, str(case_path), "", problems, nested=True)
    return _validate_cases(value, str(manifest_path), f"{base}/cases", problems, nested=False)


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, with every link followed, stays inside ``folder``."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def _validate_cases(raw: Any, file: str, where: str, problems: list[Problem], *, nested: bool) -> Read | None:
    if not isinstance(raw, list) or not raw:
        what = "a case file must hold a non-empty array of cases" if nested else \
            "cases must be a non-empty array or a case-file path"
        problems.append(Problem(file, where, what))
        return None
    for number, item in enumerate(raw):
        if isinstance(item, str):
            problems.append(Problem(file, f"{where}/{number}", "case files cannot point to further files"))
            return None
    columns = case_columns(raw)
    if columns is not None:  # every case is valid: no model is made until one is asked for
        return LazyCases(raw), columns, file, where
    try:  # the models name the problem (or validate a case the columns could not vouch for)
        cases = tuple(_CASES.validate_python(raw))
    except ValidationError as exc:
        problems.extend(_pydantic_problems(file, where, exc))
        return None
    columns = case_columns(_CASES.dump_python(list(cases), mode="json"))
    assert columns is not None  # the models' dump spells every field out
    return cases, columns, file, where


def _unique(values: list[str], file: str, where: str, key: str, what: str, problems: list[Problem]) -> None:
    seen: set[str] = set()
    for number, value in enumerate(values):
        if value in seen:
            problems.append(Problem(file, f"{where}/{number}/{key}", f"duplicate {what} {value!r}"))
        seen.add(value)


def _pydantic_problems(file: str, where: str, exc: ValidationError) -> list[Problem]:
    found = []
    for error in exc.errors(include_url=False, include_input=False):
        place = "".join(f"/{_escape(part)}" for part in error["loc"])
        message = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        found.append(Problem(file, f"{where}{place}", message))
    return found


def _escape(part: str | int) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")
