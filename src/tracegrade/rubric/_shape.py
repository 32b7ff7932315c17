"""Turn parsed rubric data into a :class:`Rubric`, with errors that name the place and the rule.

Every check here runs before the pydantic models see the data, so the message a user
reads says which parameter (or file and key) is wrong and why, in plain words.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from tracegrade.errors import ConfigError
from tracegrade.rubric._models import MAX_CRITERIA, MAX_DESCRIPTION_CHARS, Aggregation, Criterion, Rubric

__all__ = ["MAX_CRITERION_NAME_CHARS", "MAX_NAME_CHARS", "check_keys", "rubric_from_data", "text_field", "version_text"]

MAX_NAME_CHARS = 200
"""Longest rubric name or reference id accepted."""
MAX_CRITERION_NAME_CHARS = MAX_DESCRIPTION_CHARS
"""Longest criterion name accepted (2,000 characters, like descriptions)."""

_RUBRIC_KEYS = frozenset({"name", "version", "aggregation", "criteria", "description"})
_CRITERION_KEYS = frozenset({"name", "description", "weight"})


def rubric_from_data(
    data: object,
    *,
    where: str,
    default_name: str = "rubric",
    default_version: str = "1",
    extra_keys: Collection[str] = (),
) -> Rubric:
    """Validate a parsed rubric document and build the rubric.

    The document is ``{name?, version?, aggregation?, description?, criteria: [...]}``
    where each criterion is ``{name, description, weight}`` (a criterion without a weight is invalid).

    Args:
        data: The parsed document.
        where: Prefix for error messages: the parameter, and the file or key when relevant.
        default_name: Rubric name used when the document has none.
        default_version: Rubric version used when the document has none.
        extra_keys: Further top-level keys the caller handles itself (e.g. ``references``).

    Returns:
        The validated rubric.

    Raises:
        ConfigError: The document breaks a rule; the message names the place and the rule.

    """
    mapping = _mapping(data, where, "the rubric")
    check_keys(mapping, allowed=_RUBRIC_KEYS | set(extra_keys), required=("criteria",), where=where)
    name = _name(mapping.get("name", default_name), where, "rubric name")
    version = version_text(mapping.get("version", default_version), where)
    aggregation = _aggregation(mapping.get("aggregation", Aggregation.WEIGHTED_MEAN.value), where)
    if "description" in mapping:
        text_field(mapping["description"], where, "rubric description", max_chars=MAX_DESCRIPTION_CHARS)
    criteria = _criteria(mapping["criteria"], where)
    return Rubric(name=name, version=version, criteria=criteria, aggregation=aggregation)


def check_keys(mapping: Mapping[str, Any], *, allowed: Collection[str], required: Collection[str], where: str) -> None:
    """Refuse unknown keys and report missing required ones.

    Args:
        mapping: The object to check.
        allowed: Every key that may appear.
        required: Keys that must appear.
        where: Prefix for error messages.

    Raises:
        ConfigError: A key is unknown or missing.

    """
    unknown = sorted(str(key) for key in mapping if key not in allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")
    missing = [key for key in required if key not in mapping]
    if missing:
        raise ConfigError(f"{where}: missing required key(s) {', '.join(missing)}")


def _criteria(value: object, where: str) -> tuple[Criterion, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: criteria must be a list")
    if not 1 <= len(value) <= MAX_CRITERIA:
        raise ConfigError(f"{where}: criteria must hold 1 to {MAX_CRITERIA} items, got {len(value)}")
    criteria = tuple(_criterion(item, index, where) for index, item in enumerate(value))
    seen: set[str] = set()
    for criterion in criteria:
        if criterion.name in seen:
            raise ConfigError(f"{where}: criterion names must be unique; {criterion.name!r} appears twice")
        seen.add(criterion.name)
    return criteria


def _criterion(item: object, index: int, where: str) -> Criterion:
    label = f"criteria[{index}]"
    mapping = _mapping(item, where, label)
    check_keys(mapping, allowed=_CRITERION_KEYS, required=("name", "description", "weight"), where=f"{where}: {label}")
    name = text_field(mapping["name"], where, f"{label} name", max_chars=MAX_CRITERION_NAME_CHARS)
    label = f"criterion {name[:80]!r}"
    description = text_field(mapping["description"], where, f"{label} description", max_chars=MAX_DESCRIPTION_CHARS)
    weight = _weight(mapping["weight"], where, label)
    return Criterion(name=name, description=description, weight=weight)


def _weight(value: object, where: str, label: str) -> float:
    rule = f"{where}: {label} weight must be a positive finite number"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{rule}, got {type(value).__name__} {_short(value)}")
    if isinstance(value, int) and value.bit_length() > 1023:  # float() would overflow (and repr may refuse it)
        raise ConfigError(f"{rule}, got an integer of {value.bit_length():,} bits")
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{rule}, got {value!r}")
    return float(value)


def _name(value: object, where: str, label: str) -> str:
    return text_field(value, where, label, max_chars=MAX_NAME_CHARS)


def text_field(value: object, where: str, label: str, *, max_chars: int) -> str:
    """Check a required text value and return it stripped.

    Args:
        value: The value.
        where: Prefix for error messages.
        label: What the value is (e.g. ``criterion 'x' description``).
        max_chars: Longest accepted length.

    Returns:
        The stripped text.

    Raises:
        ConfigError: The value is not a string, is blank, or is too long.

    """
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {label} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ConfigError(f"{where}: {label} must not be empty")
    if len(value) > max_chars:
        raise ConfigError(f"{where}: {label} must be at most {max_chars:,} characters, got {len(value):,}")
    return value.strip()


def version_text(value: object, where: str) -> str:
    """Check a version value (a string or an integer) and return it as text.

    Args:
        value: The value.
        where: Prefix for error messages.

    Returns:
        The version as a non-empty string.

    Raises:
        ConfigError: The value is neither a non-empty string nor an integer.

    """
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ConfigError(f"{where}: version must be a string or an integer")
    if isinstance(value, int) and value.bit_length() > 700:  # over 200 digits: refused below anyway
        raise ConfigError(f"{where}: version must be at most {MAX_NAME_CHARS} characters")
    return _name(str(value), where, "version")


def _aggregation(value: object, where: str) -> Aggregation:
    choices = ", ".join(member.value for member in Aggregation)
    if isinstance(value, str):
        try:
            return Aggregation(value.strip().lower())
        except ValueError:
            pass
    raise ConfigError(f"{where}: aggregation must be one of {choices}, got {_short(value)}")


def _mapping(value: object, where: str, label: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: {label} must be an object (mapping), got {type(value).__name__}")
    if not all(isinstance(key, str) for key in value):
        raise ConfigError(f"{where}: {label} must have string keys only")
    return value


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
