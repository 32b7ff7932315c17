"""Custom rubrics: one user-supplied rubric from exactly one of three parameters."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracegrade.errors import ConfigError, InputError
from tracegrade.rubric._files import as_path, read_capped_text
from tracegrade.rubric._models import Rubric
from tracegrade.rubric._shape import rubric_from_data
from tracegrade.rubric._yaml import TextParseError, parse_rubric_text

__all__ = [
    "CUSTOM_RUBRIC_MAX_BYTES",
    "CUSTOM_SOURCES",
    "CustomRubric",
    "custom_sources_given",
    "load_custom_rubric",
]

CUSTOM_RUBRIC_MAX_BYTES = 16 * 1024
"""Cap on a custom rubric in any form: inline text, file, or an object serialised as JSON."""

PROVIDER_RUBRIC = "provider_params.rubric"
CUSTOM_SOURCES = (PROVIDER_RUBRIC, "custom_rubric", "custom_rubric_path")
"""The parameters that can supply a custom rubric, preferred one first."""

_DEFAULT_NAME = "custom"


@dataclass(frozen=True, slots=True)
class CustomRubric:
    """A validated custom rubric and where it came from."""

    rubric: Rubric
    source: str
    """The parameter that supplied it (one of :data:`CUSTOM_SOURCES`)."""
    path: Path | None = None
    """The file, when it came from ``custom_rubric_path``."""


def custom_sources_given(params: Mapping[str, Any]) -> list[str]:
    """Names of the custom-rubric parameters that hold a value (None counts as absent).

    Args:
        params: The job parameters.

    Returns:
        The given sources, in :data:`CUSTOM_SOURCES` order.

    """
    values = {
        PROVIDER_RUBRIC: _provider_rubric(params),
        "custom_rubric": params.get("custom_rubric"),
        "custom_rubric_path": params.get("custom_rubric_path"),
    }
    return [name for name in CUSTOM_SOURCES if values[name] is not None]


def load_custom_rubric(params: Mapping[str, Any]) -> CustomRubric:
    """Read and validate the one custom rubric the parameters supply.

    Args:
        params: The job parameters.

    Returns:
        The rubric and its source.

    Raises:
        ConfigError: Zero or several sources are given, or the rubric breaks a rule.
        InputError: The rubric file cannot be read or parsed.

    """
    given = custom_sources_given(params)
    if len(given) != 1:
        raise _source_count_error(given)
    source = given[0]
    if source == PROVIDER_RUBRIC:
        return CustomRubric(_from_inline(_provider_rubric(params), PROVIDER_RUBRIC), PROVIDER_RUBRIC)
    if source == "custom_rubric":
        return CustomRubric(_from_inline(params["custom_rubric"], "custom_rubric"), "custom_rubric")
    path = as_path(params["custom_rubric_path"], "custom_rubric_path")
    return CustomRubric(_from_file(path), "custom_rubric_path", path)


def _provider_rubric(params: Mapping[str, Any]) -> Any:
    provider_params = params.get("provider_params")
    if provider_params is None:
        return None
    if not isinstance(provider_params, Mapping):
        raise ConfigError(f"provider_params: must be an object, got {type(provider_params).__name__}")
    return provider_params.get("rubric")


def _source_count_error(given: list[str]) -> ConfigError:
    options = ", ".join(CUSTOM_SOURCES)
    if not given:
        return ConfigError(f"scoring_mode custom needs exactly one rubric source; none given (use one of {options})")
    return ConfigError(f"{', '.join(given)}: give exactly one custom rubric source, not {len(given)}")


def _from_inline(value: object, param: str) -> Rubric:
    if isinstance(value, str):
        _check_size(len(value.encode("utf-8")), param)
        try:
            data = parse_rubric_text(value)
        except TextParseError as exc:
            raise ConfigError(f"{param}: not a valid YAML/JSON rubric: {exc}") from None
        return rubric_from_data(data, where=param, default_name=_DEFAULT_NAME)
    if isinstance(value, Mapping):
        _check_size(_json_size(value, param), param)
        return rubric_from_data(value, where=param, default_name=_DEFAULT_NAME)
    raise ConfigError(f"{param}: must be an object or a YAML/JSON string, got {type(value).__name__}")


def _from_file(path: Path) -> Rubric:
    param = "custom_rubric_path"
    text, _ = read_capped_text(path, param=param, max_bytes=CUSTOM_RUBRIC_MAX_BYTES)
    try:
        data = parse_rubric_text(text)
    except TextParseError as exc:
        raise InputError(f"{param}: {path}: {exc}") from None
    return rubric_from_data(data, where=f"{param} ({path})", default_name=_DEFAULT_NAME)


def _json_size(value: Mapping[str, Any], param: str) -> int:
    try:
        return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError, RecursionError):
        raise ConfigError(f"{param}: must hold only JSON values (objects, lists, strings, numbers)") from None


def _check_size(size: int, param: str) -> None:
    if size > CUSTOM_RUBRIC_MAX_BYTES:
        raise ConfigError(
            f"{param}: the rubric is {size:,} bytes; the limit is {CUSTOM_RUBRIC_MAX_BYTES:,}",
            code="limit_exceeded",
        )
