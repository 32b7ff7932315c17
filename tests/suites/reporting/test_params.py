from __future__ import annotations

import pytest
from pydantic import ValidationError

from tracegrade.errors import ConfigError, invalid_parameter
from tracegrade.suites import IntervalParameters, SuiteRunParameters


def test_defaults() -> None:
    params = SuiteRunParameters()
    assert (params.repeat, params.concurrency_limit, params.timeout, params.details) == (1, 8, 300.0, True)
    assert (params.resamples, params.level, params.seed) == (2000, 0.95, 0)
    assert list(SuiteRunParameters.model_fields)[:5] == ["resamples", "level", "seed", "repeat", "concurrency_limit"]


@pytest.mark.parametrize(("values", "flag"), [
    ({"repeat": 0}, "--repeat"), ({"concurrency_limit": 0}, "--concurrency-limit"), ({"timeout": 0}, "--timeout"),
    ({"variant": " "}, "--variant"), ({"resamples": 99}, "--resamples"), ({"level": 1.0}, "--level"),
])
def test_a_bad_value_is_one_line_naming_its_flag(values: dict[str, object], flag: str) -> None:
    with pytest.raises(ValidationError) as info:
        SuiteRunParameters.model_validate(values)
    error = invalid_parameter(info.value, flags={})
    assert isinstance(error, ConfigError) and error.code == "invalid_parameter"
    assert str(error).startswith(f"{flag} {next(iter(values.values()))}: ") and "\n" not in str(error)


def test_the_old_name_of_the_concurrency_limit_is_not_a_parameter() -> None:
    with pytest.raises(ValidationError, match="max_concurrency"):
        SuiteRunParameters.model_validate({"max_concurrency": 2})


def test_interval_parameters_are_a_part_of_the_run_parameters() -> None:
    assert set(IntervalParameters.model_fields) < set(SuiteRunParameters.model_fields)
    with pytest.raises(ValidationError):
        IntervalParameters.model_validate({"repeat": 2})
