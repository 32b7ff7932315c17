"""Validate every criteria parameter of a job before any trajectory is read or judge called.

Configuration files named by parameters (``custom_rubric_path``, ``reference_registry_path``)
are read and validated here too: they are configuration, and a broken one must stop the job
before it spends anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracegrade.atif.criteria._benchmark import BENCHMARK_REGISTRY, canonical_benchmark_name
from tracegrade.atif.criteria._reference import ReferenceRubric, load_reference_rubric
from tracegrade.errors import ConfigError
from tracegrade.rubric import MAX_NAME_CHARS, Rubric, ScoringMode, custom_sources_given, load_custom_rubric, text_field

__all__ = ["DEFAULT_REFERENCE_RUBRIC", "CriteriaParams", "validate_criteria_params"]

DEFAULT_REFERENCE_RUBRIC = "default"


@dataclass(frozen=True, slots=True)
class CriteriaParams:
    """Validated criteria parameters of one job; build it with :func:`validate_criteria_params`."""

    scoring_mode: ScoringMode = ScoringMode.AUTO
    benchmark_name: str | None = None
    """Canonical built-in benchmark name (benchmark mode)."""
    reference_registry_path: Path | None = None
    reference_rubric: str = DEFAULT_REFERENCE_RUBRIC
    custom_rubric_source: str | None = None
    """Which parameter supplied the custom rubric (custom mode)."""
    custom_rubric_path: Path | None = None
    rubric: Rubric | None = None
    """The job-wide rubric in benchmark, reference and custom modes; None in auto mode."""
    reference: ReferenceRubric | None = None
    """The selected registry rubric with its expected answers (reference mode)."""


def validate_criteria_params(params: Mapping[str, Any]) -> CriteriaParams:
    """Check the criteria parameters and load every rubric source they name.

    Other keys are ignored and None counts as absent. A parameter of another scoring mode is refused, so that
    a rubric given without ``scoring_mode: custom`` is not silently ignored.

    Raises:
        ConfigError: naming the parameter and the rule it breaks.
        InputError: a configuration file cannot be read or parsed (naming the file and the place).
    """
    if not isinstance(params, Mapping):
        raise ConfigError(f"parameters: must be an object, got {type(params).__name__}")
    mode = _scoring_mode(params.get("scoring_mode"))
    _refuse_foreign(params, mode)
    return _BUILDERS[mode](params)


def _scoring_mode(value: object) -> ScoringMode:
    if value is None:
        return ScoringMode.AUTO
    if isinstance(value, str):
        try:
            return ScoringMode(value.strip().lower())
        except ValueError:
            pass
    choices = ", ".join(mode.value for mode in ScoringMode)
    raise ConfigError(f"scoring_mode: must be one of {choices}, got {value!r}")


def _owned_params(params: Mapping[str, Any]) -> dict[ScoringMode, list[str]]:
    reference = ["reference_registry_path"] if params.get("reference_registry_path") is not None else []
    if params.get("reference_rubric") not in (None, DEFAULT_REFERENCE_RUBRIC):
        reference.append("reference_rubric")
    return {
        ScoringMode.BENCHMARK: ["benchmark_name"] if params.get("benchmark_name") is not None else [],
        ScoringMode.REFERENCE: reference,
        ScoringMode.CUSTOM: custom_sources_given(params),
    }


def _refuse_foreign(params: Mapping[str, Any], mode: ScoringMode) -> None:
    for owner, names in _owned_params(params).items():
        if owner is not mode and names:
            raise ConfigError(
                f"{', '.join(names)}: only used when scoring_mode is {owner.value}, "
                f"but scoring_mode is {mode.value}; remove it or set scoring_mode to {owner.value}"
            )


def _benchmark(params: Mapping[str, Any]) -> CriteriaParams:
    value = params.get("benchmark_name")
    if value is None:
        known = ", ".join(sorted(BENCHMARK_REGISTRY))
        raise ConfigError(f"benchmark_name: required when scoring_mode is benchmark (known benchmarks: {known})")
    name = canonical_benchmark_name(value)
    return CriteriaParams(scoring_mode=ScoringMode.BENCHMARK, benchmark_name=name, rubric=BENCHMARK_REGISTRY[name])


def _reference(params: Mapping[str, Any]) -> CriteriaParams:
    path = params.get("reference_registry_path")
    if path is None:
        raise ConfigError("reference_registry_path: required when scoring_mode is reference")
    rubric_name = params.get("reference_rubric")
    rubric_name = text_field(DEFAULT_REFERENCE_RUBRIC if rubric_name is None else rubric_name, "reference_rubric",
                             "the rubric name", max_chars=MAX_NAME_CHARS)
    reference = load_reference_rubric(path, rubric_name)
    return CriteriaParams(scoring_mode=ScoringMode.REFERENCE, reference_registry_path=reference.path,
                          reference_rubric=rubric_name, rubric=reference.rubric, reference=reference)


def _custom(params: Mapping[str, Any]) -> CriteriaParams:
    custom = load_custom_rubric(params)
    return CriteriaParams(scoring_mode=ScoringMode.CUSTOM, custom_rubric_source=custom.source,
                          custom_rubric_path=custom.path, rubric=custom.rubric)


_BUILDERS: dict[ScoringMode, Callable[[Mapping[str, Any]], CriteriaParams]] = {
    ScoringMode.AUTO: lambda params: CriteriaParams(),
    ScoringMode.BENCHMARK: _benchmark,
    ScoringMode.REFERENCE: _reference,
    ScoringMode.CUSTOM: _custom,
}
