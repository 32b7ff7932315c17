import pytest

from tracegrade.atif import CriteriaParams
from tracegrade.atif.criteria._params import validate_criteria_params
from tracegrade.errors import ConfigError
from tracegrade.rubric import ScoringMode


def test_defaults_to_auto_and_ignores_other_parameters():
    params = validate_criteria_params({"concurrency_limit": 4, "trajectory_path": "/x", "scoring_mode": None})
    assert params == CriteriaParams(scoring_mode=ScoringMode.AUTO)
    assert params.rubric is None


def test_scoring_mode_is_case_insensitive():
    assert validate_criteria_params({"scoring_mode": " AUTO "}).scoring_mode is ScoringMode.AUTO


@pytest.mark.parametrize("mode", ["judge", 1, ""])
def test_unknown_scoring_mode_names_the_choices(mode):
    with pytest.raises(ConfigError, match="scoring_mode: must be one of auto, benchmark, reference, custom"):
        validate_criteria_params({"scoring_mode": mode})


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"benchmark_name": "terminal-bench"}, "benchmark_name"),
        ({"reference_registry_path": "/r.json"}, "reference_registry_path"),
        ({"reference_rubric": "answer_quality"}, "reference_rubric"),
        ({"custom_rubric": "criteria: []"}, "custom_rubric"),
        ({"provider_params": {"rubric": {"criteria": []}}}, "provider_params.rubric"),
    ],
)
def test_parameters_of_another_mode_are_refused(params, named):
    with pytest.raises(ConfigError, match=rf"^{named}: only used when scoring_mode is .* but scoring_mode is auto"):
        validate_criteria_params(params)


def test_default_reference_rubric_and_unrelated_provider_params_are_tolerated():
    params = validate_criteria_params({"reference_rubric": "default", "provider_params": {"other": 1}})
    assert params.scoring_mode is ScoringMode.AUTO


def test_provider_params_must_be_an_object():
    with pytest.raises(ConfigError, match="provider_params: must be an object"):
        validate_criteria_params({"scoring_mode": "custom", "provider_params": "rubric"})


def test_parameters_must_be_a_mapping():
    with pytest.raises(ConfigError, match="parameters: must be an object"):
        validate_criteria_params(["scoring_mode"])  # type: ignore[arg-type]


def test_blank_reference_rubric_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="reference_rubric: the rubric name must not be empty"):
        validate_criteria_params(
            {"scoring_mode": "reference", "reference_registry_path": str(tmp_path), "reference_rubric": " "}
        )


def test_registry_path_that_is_a_directory_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="is not a regular file"):
        validate_criteria_params({"scoring_mode": "reference", "reference_registry_path": str(tmp_path)})


def test_params_are_frozen():
    params = validate_criteria_params({})
    with pytest.raises(AttributeError):
        params.scoring_mode = ScoringMode.CUSTOM  # type: ignore[misc]
