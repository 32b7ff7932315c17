"""The report: typed records, per-suite sections, exit code, content-free summary, private writing, reading."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any, Final, Literal

import orjson
from pydantic import Field, SerializerFunctionWrapHandler, ValidationError, model_serializer

from tracegrade._io import Pieces, items_piece, loads_written, write_atomic, write_document
from tracegrade.errors import ConfigError, InputError, OutputError
from tracegrade.runs import MAX_INPUT_BYTES, UnreadableFile, read_capped
from tracegrade.stats import Interval
from tracegrade.suites.checking._records import FAILED_STATUSES, AttemptRecord, Record
from tracegrade.suites.reading._dataset import Dataset, SuiteSpec
from tracegrade.suites.reading._models import Metric
from tracegrade.suites.reporting._params import IntervalParameters, SuiteRunParameters
from tracegrade.suites.reporting._summaries import SuiteRates, SuiteSummary, summarise_suite

__all__ = [
    "REPORT_FORMAT",
    "DatasetIdentity",
    "PassRateIntervals",
    "ReplayedFrom",
    "ReportMode",
    "ReportSummary",
    "SuiteHeadline",
    "SuiteIdentity",
    "SuiteReport",
    "SuiteSection",
    "dumps_report",
    "exit_code",
    "read_report",
    "report_parts",
    "report_summary",
    "suite_section",
    "write_private",
]

REPORT_FORMAT: Final = "tracegrade.suite-report/1"
ReportMode = Literal["run", "replay"]
_RENAMED_PARAMETERS = {"max_concurrency": "concurrency_limit"}
"""Parameter names of reports written before a rename, and their names now."""


class DatasetIdentity(Record):
    """Which dataset a report is of."""

    name: str
    revision: str

    @classmethod
    def of(cls, dataset: Dataset) -> DatasetIdentity:
        """The name and revision of ``dataset``."""
        return cls(name=dataset.name, revision=dataset.revision)


class SuiteIdentity(Record):
    """What a suite section is of: the suite, its gold, its targets, the comparisons and the run's configuration."""

    suite: str
    revision: str
    """The dataset revision."""
    fingerprint: str
    """SHA-256 over the suite name, the dataset revision and every case (compare refuses a different one)."""
    variant: str | None
    configuration_revision: str | None
    scorers: dict[str, str]
    """The recorded revision of every comparison the suite uses, by name."""
    target_workflow: str
    target_flow: str | None
    target_step: str | None
    repeat: int
    metric_specs: list[Metric]


class PassRateIntervals(Record):
    """Percentile bootstrap intervals resampling whole source cases (repetitions of a case move together)."""

    check_pass_rate: Interval
    case_pass_rate: Interval


# pydantic orders the fields of several bases from the last base to the first: identity, summary, then these.
class SuiteSection(SuiteSummary, SuiteIdentity):
    """One suite of the report: identity, aggregates, intervals and every attempt record."""

    intervals: PassRateIntervals
    attempts: list[AttemptRecord] = Field(repr=False)
    """Every attempt, in case then repetition order (left out of the repr, which asyncio may take of a result)."""


class ReplayedFrom(Record):
    """The saved report a replay rescored."""

    started_at: str | None
    mode: ReportMode


class SuiteReport(Record):
    """A suite run or replay: what ``report.json`` holds, and what the terminal and HTML reports show."""

    format: Literal["tracegrade.suite-report/1"] = REPORT_FORMAT
    mode: ReportMode
    dataset: DatasetIdentity
    parameters: SuiteRunParameters
    target: dict[str, Any] | None
    """The system under test as it describes itself (kind and address)."""
    replayed: ReplayedFrom | None = None
    """Replays only (left out of a run's JSON)."""
    started_at: str
    """ISO 8601, UTC."""
    elapsed_seconds: float
    suites: list[SuiteSection]

    @model_serializer(mode="wrap")
    def _leave_out_replayed(self, serialize: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = serialize(self)
        if self.replayed is None:
            del data["replayed"]
        return data


class _Headed(Record):
    suite: str
    attempt_count: int
    source_case_count: int


class SuiteHeadline(SuiteRates, _Headed):
    """One suite's sizes and rates, with no ids, inputs or results."""


class ReportSummary(Record):
    """The content-free summary printed on stdout."""

    format: Literal["tracegrade.suite-report/1"] = REPORT_FORMAT
    mode: ReportMode
    report: str | None
    """Where the report was written."""
    suites: list[SuiteHeadline]
    exit_code: int


_ID, _CHECKS, _PASSED, _OUTCOME = attrgetter("id"), attrgetter("checks"), attrgetter("passed"), attrgetter("outcome")


def _intervals(attempts: Sequence[AttemptRecord], params: IntervalParameters) -> PassRateIntervals:
    """Bootstrap intervals of the pass rates over source cases (repetitions of a case move together)."""
    from tracegrade.stats import unit_bootstrap_many

    ids = list(map(_ID, attempts))
    passes = [list(map(_OUTCOME, attempt.checks)).count("passed") for attempt in attempts]
    sizes = list(map(len, map(_CHECKS, attempts)))
    passed = list(map(int, map(_PASSED, attempts)))
    units: dict[str, int] = dict.fromkeys(ids, 0)
    if len(units) == len(ids):  # one attempt per source case: its totals are the case's
        checks, check_counts, cases, case_counts = passes, sizes, passed, [1] * len(ids)
    else:  # each source case's passes and attempts, cases in the order they come
        for at, case_id in enumerate(units):
            units[case_id] = at
        checks, check_counts, cases, case_counts = ([0] * len(units) for _ in range(4))
        for case_id, passing, size, case_passed in zip(ids, passes, sizes, passed, strict=True):
            at = units[case_id]
            checks[at] += passing
            check_counts[at] += size
            cases[at] += case_passed
            case_counts[at] += 1
    intervals = unit_bootstrap_many(
        {"check_pass_rate": (list(units), checks, check_counts), "case_pass_rate": (list(units), cases, case_counts)},
        resamples=params.resamples, level=params.level, seed=params.seed,
    )
    return PassRateIntervals(**intervals)


def suite_section(suite: SuiteSpec, attempts: Sequence[AttemptRecord], params: SuiteRunParameters,
                  scorers: dict[str, str]) -> SuiteSection:
    """One suite of the report: identity, targets, summaries, intervals and attempt records."""
    return SuiteSection(
        suite=suite.name, revision=suite.revision, fingerprint=suite.fingerprint, variant=params.variant,
        configuration_revision=params.configuration_revision, scorers=scorers, **suite.targets,
        repeat=params.repeat, metric_specs=list(suite.metrics), **dict(summarise_suite(suite, attempts)),
        intervals=_intervals(attempts, params), attempts=list(attempts))


def exit_code(report: SuiteReport) -> int:
    """4 when an attempt failed operationally, else 1 when any check did not pass, else 0."""
    attempts = [a for s in report.suites for a in s.attempts]
    if any(a.status in FAILED_STATUSES for a in attempts):
        return 4
    return 0 if all(a.passed for a in attempts) else 1


def report_summary(report: SuiteReport, path: Path | None) -> ReportSummary:
    """The content-free summary printed on stdout (no inputs, results or case ids)."""
    return ReportSummary(mode=report.mode, report=None if path is None else str(path),
                         suites=[SuiteHeadline.model_validate(s, from_attributes=True) for s in report.suites],
                         exit_code=exit_code(report))


_OPTIONS: Final = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
_SLICE: Final = 1024
"""Attempt records dumped at a time by :func:`report_parts`."""


def report_parts(report: SuiteReport, slice_size: int = _SLICE) -> Iterator[bytes | memoryview]:
    """The report as indented JSON, in pieces: the bytes of :func:`dumps_report`, never held whole.

    The attempt records (frozen dataclasses, the bulk of a report) go to the writer as they are,
    ``slice_size`` at a time, each section's list written item by item.
    """
    data = report.model_dump(exclude={"suites": {"__all__": {"attempts"}}})
    for section, suite in zip(data["suites"], report.suites, strict=True):
        section["attempts"] = Pieces(_slices(suite.attempts, slice_size))  # the last field, as in the model
    return write_document(data, _OPTIONS)


def _slices(attempts: list[AttemptRecord], slice_size: int) -> Iterator[bytes]:
    for start in range(0, len(attempts), slice_size):
        yield items_piece(attempts[start:start + slice_size], _OPTIONS)


def dumps_report(report: SuiteReport) -> bytes:
    """The report as indented JSON bytes, as pydantic and orjson write the whole model."""
    return b"".join(report_parts(report))


def write_private(path: Path, data: bytes | Iterable[bytes | memoryview]) -> None:
    """Write ``data`` to ``path`` atomically with mode 0600, never replacing an existing file.

    ``data`` is bytes, or pieces written in turn (a failure while they are made leaves no file).

    Raises:
        ConfigError: when ``path`` already exists.
        OutputError: when the folder is not writable.
    """
    try:
        write_atomic(path, data, mode=0o600, exclusive=True)
    except FileExistsError:
        raise ConfigError(f"{path} already exists; reports are never overwritten", code="output_exists") from None
    except OSError as exc:
        raise OutputError(f"{path.parent}: cannot write ({exc.strerror})", code="output_unwritable") from None


def read_report(path: Path) -> SuiteReport:
    """Read a saved report (reports written before ``max_concurrency`` became ``concurrency_limit`` too).

    Raises:
        InputError: naming the file and what is wrong.
    """
    try:
        report = loads_written(read_capped(path, MAX_INPUT_BYTES))  # a FIFO or device is refused, never waited on
    except UnreadableFile as exc:
        raise InputError(str(exc), code="invalid_report") from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc.msg})", code="invalid_report") from None
    if not isinstance(report, dict) or report.get("format") != REPORT_FORMAT:
        raise InputError(f"{path}: not a tracegrade suite report ({REPORT_FORMAT})", code="invalid_report")
    if isinstance(report.get("parameters"), dict):
        report["parameters"] = {_RENAMED_PARAMETERS.get(k, k): v for k, v in report["parameters"].items()}
    try:
        return SuiteReport.model_validate(report)
    except ValidationError as exc:
        raise InputError(f"{path}: {_problem(exc)}", code="invalid_report") from None


def _problem(exc: ValidationError) -> str:
    first = exc.errors(include_url=False, include_input=False)[0]
    loc = first["loc"]
    where = "".join(f"/{part}" for part in loc)
    if len(loc) > 3 and loc[0] == "suites" and loc[2] == "attempts":
        return f"{where}: invalid attempt record"
    return f"{where or '/'}: {first['msg']}"
