"""The report: per-suite sections, exit code, content-free summary, private no-overwrite writing, reading."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from tracegrade.errors import ConfigError, InputError, TracegradeError
from tracegrade.runs import gc_paused
from tracegrade.suites.checking._records import FAILED_STATUSES, AttemptRecord
from tracegrade.suites.reading._dataset import SuiteSpec
from tracegrade.suites.reporting._params import IntervalParameters
from tracegrade.suites.reporting._summaries import summarise_suite

__all__ = [
    "REPORT_FORMAT",
    "SUMMARY_KEYS",
    "exit_code",
    "interval_json",
    "read_report",
    "report_summary",
    "suite_section",
    "write_private",
]

REPORT_FORMAT = "tracegrade.suite-report/1"
SUMMARY_KEYS = ("attempt_count", "source_case_count", "checks", "check_pass_rate", "check_coverage",
                "case_pass_rate", "failure_rate", "review_rate")
_ATTEMPTS = TypeAdapter(list[AttemptRecord])
_REPORT_KEYS = frozenset({"format", "mode", "dataset", "parameters", "suites"})
_SUITE_KEYS = frozenset({"suite", "fingerprint", "target_workflow", "target_flow", "target_step", "repeat", "scorers",
                         "metric_specs", "configuration_revision", "attempts"})


def interval_json(interval: Any) -> dict[str, Any]:
    """A :class:`tracegrade.stats.Interval` as JSON."""
    return {"estimate": interval.estimate, "low": interval.low, "high": interval.high, "n": interval.n,
            "level": interval.level}


def _intervals(attempts: Sequence[AttemptRecord], params: IntervalParameters) -> dict[str, Any]:
    """Bootstrap intervals of the pass rates over source cases (repetitions of a case move together)."""
    from tracegrade.stats import paired_bootstrap_many

    checks = [1.0 if c.outcome == "passed" else 0.0 for a in attempts for c in a.checks]
    cases = [1.0 if a.passed else 0.0 for a in attempts]
    intervals = paired_bootstrap_many(
        {"check_pass_rate": (checks, [0.0] * len(checks), [a.id for a in attempts for _ in a.checks]),
         "case_pass_rate": (cases, [0.0] * len(cases), [a.id for a in attempts])},
        resamples=params.resamples, level=params.level, seed=params.seed,
    )
    return {name: interval_json(interval) for name, interval in intervals.items()}


def suite_section(suite: SuiteSpec, attempts: Sequence[AttemptRecord], params: Any,
                  scorers: dict[str, str]) -> dict[str, Any]:
    """One suite of the report: identity, targets, summaries, intervals and attempt records."""
    return {
        "suite": suite.name, "revision": suite.revision, "fingerprint": suite.fingerprint,
        "variant": getattr(params, "variant", None),
        "configuration_revision": getattr(params, "configuration_revision", None),
        "scorers": scorers, **suite.targets, "repeat": getattr(params, "repeat", 1),
        "metric_specs": [metric.model_dump(mode="json") for metric in suite.metrics],
        **summarise_suite(suite, attempts),
        "intervals": _intervals(attempts, params),
        "attempts": list(attempts),
    }


def exit_code(report: dict[str, Any]) -> int:
    """4 when an attempt failed operationally, else 1 when any check did not pass, else 0."""
    attempts = [a for s in report["suites"] for a in s["attempts"]]
    if any(_field(a, "status") in FAILED_STATUSES for a in attempts):
        return 4
    return 0 if all(_field(a, "passed") for a in attempts) else 1


def _field(attempt: Any, name: str) -> Any:
    return attempt[name] if isinstance(attempt, dict) else getattr(attempt, name)


def report_summary(report: dict[str, Any], path: Path | None) -> dict[str, Any]:
    """The content-free summary printed on stdout (no inputs, results or case ids)."""
    return {"format": REPORT_FORMAT, "mode": report["mode"], "report": None if path is None else str(path),
            "suites": [{"suite": s["suite"], **{k: s[k] for k in SUMMARY_KEYS}} for s in report["suites"]],
            "exit_code": exit_code(report)}


def dumps_report(report: dict[str, Any]) -> bytes:
    """The report as indented JSON bytes."""
    return orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically with mode 0600, never replacing an existing file.

    Raises:
        ConfigError: when ``path`` already exists.
        TracegradeError: when the folder is not writable.
    """
    if path.exists():
        raise ConfigError(f"{path} already exists; reports are never overwritten", code="output_exists")
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise TracegradeError(f"{path.parent}: cannot write ({exc.strerror})", code="output_unwritable") from None
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temp, path)  # fails instead of replacing a file that appeared meanwhile
    except FileExistsError:
        raise ConfigError(f"{path} already exists; reports are never overwritten", code="output_exists") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)


def read_report(path: Path) -> dict[str, Any]:
    """Read a saved report; its attempt records are validated and returned as :class:`AttemptRecord`.

    Raises:
        InputError: naming the file and what is wrong.
    """
    try:
        report = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})", code="invalid_report") from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc.msg})", code="invalid_report") from None
    if not isinstance(report, dict) or report.get("format") != REPORT_FORMAT or not isinstance(
            report.get("suites"), list) or not set(report) >= _REPORT_KEYS:
        raise InputError(f"{path}: not a tracegrade suite report ({REPORT_FORMAT})", code="invalid_report")
    for index, suite in enumerate(report["suites"]):
        if not isinstance(suite, dict) or not set(suite) >= _SUITE_KEYS:
            raise InputError(f"{path}: /suites/{index}: not a suite section", code="invalid_report")
        try:
            with gc_paused():
                suite["attempts"] = _ATTEMPTS.validate_python(suite["attempts"])
        except (ValidationError, KeyError, TypeError) as exc:
            where = _where(exc)
            raise InputError(f"{path}: /suites/{index}/attempts{where}: invalid attempt record",
                             code="invalid_report") from None
    return report


def _where(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "".join(f"/{part}" for part in exc.errors()[0]["loc"])
    return ""
