"""One error tree for the whole product.

Every error carries a stable ``code`` (safe to log and persist: it never contains
secrets or raw judge output) and the process exit code the CLI uses for it::

    TracegradeError                 exit 4  operational failure
    ├── InputError                  exit 2  a file or its content is unusable
    │   └── LimitExceededError      exit 2  a configured size/count limit was exceeded
    ├── ConfigError                 exit 2  a parameter or option is invalid
    ├── MissingDependencyError      exit 3  an optional extra is not installed
    ├── JudgeError                  exit 4  the judge could not be used (transport, protocol, budget)
    ├── OutputError                 exit 4  the output location cannot be written
    ├── ThresholdNotMetError        exit 1  evaluation ran but failed its threshold
    └── Interrupted                 exit 130  Ctrl-C or SIGTERM stopped a command; the message says what was kept

A job that ends without raising gives its exit code through :func:`outcome_exit_code`, the one table from
the ways a job ends (``JobStatus``, the judge's ``JobOutcome``) to exit codes.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = [
    "ConfigError",
    "ExitCode",
    "InputError",
    "Interrupted",
    "JudgeError",
    "LimitExceededError",
    "MissingDependencyError",
    "OutputError",
    "ThresholdNotMetError",
    "TracegradeError",
    "invalid_parameter",
    "outcome_exit_code",
    "validation_message",
]


class ExitCode(IntEnum):
    """Documented process exit codes."""

    OK = 0
    THRESHOLD = 1
    INVALID_INPUT = 2
    MISSING_DEPENDENCY = 3
    OPERATIONAL = 4
    INTERRUPTED = 130


_OUTCOME_EXIT_CODES = {
    "completed": ExitCode.OK,
    "passed": ExitCode.OK,
    "roots_failed": ExitCode.THRESHOLD,
    "below_threshold": ExitCode.THRESHOLD,
    "invalid_input": ExitCode.INVALID_INPUT,
    "failed": ExitCode.OPERATIONAL,
    "interrupted": ExitCode.INTERRUPTED,
}


def outcome_exit_code(outcome: str) -> ExitCode:
    """The exit code of a way a job ends: a run folder's ``JobStatus`` or a judge job's ``JobOutcome`` value."""
    return _OUTCOME_EXIT_CODES[str(outcome)]


class TracegradeError(Exception):
    """Base of every error raised on purpose by tracegrade."""

    exit_code: ExitCode = ExitCode.OPERATIONAL
    default_code: str = "operational_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code

    def __str__(self) -> str:
        return self.message


class InputError(TracegradeError):
    """An input file or its content cannot be used; the message names the file and the place in it."""

    exit_code = ExitCode.INVALID_INPUT
    default_code = "invalid_input"


class LimitExceededError(InputError):
    """A configured limit (bytes, files, steps) was exceeded."""

    default_code = "limit_exceeded"


class ConfigError(TracegradeError):
    """A parameter or option is invalid; the message names the parameter and the rule."""

    exit_code = ExitCode.INVALID_INPUT
    default_code = "invalid_parameter"


class MissingDependencyError(TracegradeError):
    """An optional extra needed for this feature is not installed."""

    exit_code = ExitCode.MISSING_DEPENDENCY
    default_code = "missing_dependency"


class JudgeError(TracegradeError):
    """The judge could not be used; ``code`` is one of the safe judge error codes."""

    exit_code = ExitCode.OPERATIONAL
    default_code = "judge_error"


class OutputError(TracegradeError):
    """The output location cannot be written (not a folder, not writable, full disk)."""

    exit_code = ExitCode.OPERATIONAL
    default_code = "output_unusable"


class ThresholdNotMetError(TracegradeError):
    """The evaluation completed but did not meet the requested threshold."""

    exit_code = ExitCode.THRESHOLD
    default_code = "threshold_not_met"


class Interrupted(TracegradeError):
    """Ctrl-C or SIGTERM stopped a long command; the message says what was kept (finished work is written)."""

    exit_code = ExitCode.INTERRUPTED
    default_code = "interrupted"


def validation_message(error: ValidationError, *, flags: Mapping[str, str] | None = None) -> str:
    """The one-line message of a pydantic validation error, ``place: rule``, for its first problem.

    The place is the field's dotted path (``judge_max_attempts``). Given ``flags`` (the command line), it
    is the field's flag, ``--`` and the name with dashes unless ``flags`` spells it otherwise, followed by
    the value given (``--resamples 99``). The rule is pydantic's message without its ``Value error,``
    prefix.
    """
    first = error.errors(include_url=False)[0]
    location = first["loc"]
    place = ".".join(str(part) for part in location) or "value"
    if flags is not None and location:
        name = str(location[0])
        place = flags.get(name, "--" + name.replace("_", "-"))
        if first["type"] != "missing":
            place = f"{place} {first['input']}"
    rule = str(first["msg"]).removeprefix("Value error, ")
    return f"{place}: {rule}".replace("\n", " ")


def invalid_parameter(error: ValidationError, *, flags: Mapping[str, str] | None = None) -> ConfigError:
    """A :class:`ConfigError` (exit 2) with the :func:`validation_message` of a parameter model's error."""
    return ConfigError(validation_message(error, flags=flags))
