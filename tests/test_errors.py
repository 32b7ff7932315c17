from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError, field_validator

from tracegrade.errors import ConfigError, ExitCode, invalid_parameter, validation_message


class _Knobs(BaseModel):
    lam: float = Field(0.5, ge=0, le=10)
    resamples: int = Field(2000, ge=100)
    name: str

    @field_validator("name")
    @classmethod
    def _no_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank\nat all")
        return value


def _error(values: dict[str, object]) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        _Knobs.model_validate(values)
    return info.value


def test_a_parameter_is_named_by_its_field() -> None:
    assert validation_message(_error({"name": "a", "resamples": 99})) == (
        "resamples: Input should be greater than or equal to 100")


def test_on_the_command_line_the_place_is_the_flag_and_the_value_given() -> None:
    error = _error({"name": "a", "lam": -1.0})
    assert validation_message(error, flags={}) == "--lam -1.0: Input should be greater than or equal to 0"
    assert validation_message(error, flags={"lam": "--lambda"}).startswith("--lambda -1.0: ")


def test_a_missing_field_has_no_value_and_a_validators_message_is_one_line() -> None:
    assert validation_message(_error({}), flags={}) == "--name: Field required"
    assert validation_message(_error({"name": " "})) == "name: must not be blank at all"


def test_the_error_is_a_config_error_that_exits_2() -> None:
    error = invalid_parameter(_error({"name": "a", "resamples": 5}), flags={})
    assert isinstance(error, ConfigError) and error.exit_code == ExitCode.INVALID_INPUT
    assert error.code == "invalid_parameter" and str(error).startswith("--resamples 5: ")
