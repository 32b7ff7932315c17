from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade.errors import ConfigError, InputError
from tracegrade.rubric import CUSTOM_RUBRIC_MAX_BYTES, custom_sources_given, load_custom_rubric

YAML = "criteria:\n  - name: quality\n    description: Good step\n    weight: 1\n"
OBJECT = {"name": "mine", "criteria": [{"name": "quality", "description": "Good step", "weight": 1}]}


def test_the_sources_given_are_listed_in_preference_order_and_none_is_absent() -> None:
    params = {"custom_rubric_path": "r.yaml", "custom_rubric": None, "provider_params": {"rubric": OBJECT}}
    assert custom_sources_given(params) == ["provider_params.rubric", "custom_rubric_path"]
    assert custom_sources_given({}) == []
    assert custom_sources_given({"custom_rubric": ""}) == ["custom_rubric"]  # given, if empty: refused later


def test_an_inline_yaml_rubric_is_named_custom_by_default() -> None:
    loaded = load_custom_rubric({"custom_rubric": YAML})
    assert (loaded.rubric.name, loaded.source, loaded.path) == ("custom", "custom_rubric", None)


def test_a_provider_object_keeps_its_own_name() -> None:
    loaded = load_custom_rubric({"provider_params": {"rubric": OBJECT}})
    assert (loaded.rubric.name, loaded.source) == ("mine", "provider_params.rubric")


def test_a_rubric_file_is_read_and_its_path_kept(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(YAML)
    loaded = load_custom_rubric({"custom_rubric_path": str(path)})
    assert (loaded.source, loaded.path) == ("custom_rubric_path", path)
    assert loaded.rubric.normalized()[0]["name"] == "quality"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "needs exactly one rubric source; none given"),
        ({"custom_rubric": YAML, "custom_rubric_path": "r.yaml"}, "custom_rubric, custom_rubric_path: give exactly"),
        ({"provider_params": ["rubric"]}, "provider_params: must be an object, got list"),
        ({"custom_rubric": 3}, "custom_rubric: must be an object or a YAML/JSON string, got int"),
        ({"custom_rubric": "criteria: [\n"}, "custom_rubric: not a valid YAML/JSON rubric"),
        ({"custom_rubric": {"criteria": [{"n": {1, 2}}]}}, "custom_rubric: must hold only JSON values"),
    ],
)
def test_unusable_parameters_are_config_errors_naming_the_parameter(params: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_custom_rubric(params)


def test_a_rubric_over_the_cap_is_refused_in_every_form(tmp_path: Path) -> None:
    big = {"criteria": [{"name": "q", "description": "x" * CUSTOM_RUBRIC_MAX_BYTES, "weight": 1}]}
    for params in ({"custom_rubric": YAML + "#" * CUSTOM_RUBRIC_MAX_BYTES}, {"provider_params": {"rubric": big}}):
        with pytest.raises(ConfigError) as caught:
            load_custom_rubric(params)
        assert caught.value.code == "limit_exceeded"


def test_a_file_that_does_not_parse_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("criteria: [\n")
    with pytest.raises(InputError, match=r"custom_rubric_path: .*r\.yaml: "):
        load_custom_rubric({"custom_rubric_path": str(path)})
