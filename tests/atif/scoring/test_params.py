"""Every parameter of a scoring job: the judge's options composed in, validated before anything runs."""

from __future__ import annotations

from typing import Any

import pytest

from tracegrade.atif import LoadOptions, ScoringOptions, parse_parameters
from tracegrade.errors import ConfigError
from tracegrade.judge import JudgeOptions
from tracegrade.rubric import ScoringMode


def test_the_judge_options_are_the_judges_own_declarations_between_the_job_options_and_repeats() -> None:
    fields = list(ScoringOptions.model_fields)
    judge = list(JudgeOptions.model_fields)
    start = fields.index(judge[0])
    assert fields[start:start + len(judge)] == judge and fields[start + len(judge):] == ["judge_repeats"]
    assert fields[:2] == ["trajectory_path", "completion_threshold"] and fields[start - 1] == "num_examples"
    for name in judge:
        mine, theirs = ScoringOptions.model_fields[name], JudgeOptions.model_fields[name]
        assert (mine.default, mine.metadata, mine.description) == (theirs.default, theirs.metadata, theirs.description)


def test_scoring_options_are_judge_options() -> None:
    options, _ = parse_parameters({"concurrency_limit": 4, "judge_seed": 9})
    assert isinstance(options, JudgeOptions)
    assert (options.concurrency_limit, options.judge_seed, options.max_context_bytes) == (4, 9, 65536)
    assert options.model_fields_set == {"concurrency_limit", "judge_seed"}


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"judge_max_attempts": 11}, "judge_max_attempts: Input should be less than or equal to 10"),
        ({"concurrency_limit": 0}, "concurrency_limit: Input should be greater than or equal to 1"),
        ({"max_context_bytes": 512}, "max_context_bytes: Input should be greater than or equal to 1024"),
        ({"judge_temperature": "warm"}, "judge_temperature: Input should be a valid number, unable to parse string "
                                        "as a number"),
        ({"failure_threshold": 1.5}, "failure_threshold: Input should be less than or equal to 1"),
        ({"judge_repeats": 21}, "judge_repeats: Input should be less than or equal to 20"),
        ({"max_total_steps": 2.0}, "max_total_steps: Input should be a valid integer"),
    ],
)
def test_a_bad_value_is_a_config_error_naming_the_parameter(parameters: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_parameters(parameters)
    assert str(caught.value) == message


def test_unknown_parameters_are_listed_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown parameter\(s\): judge_model, temperature \(known: ") as caught:
        parse_parameters({"temperature": 0.2, "judge_model": "m"})
    assert "judge_temperature" in str(caught.value) and "scoring_mode" in str(caught.value)


def test_training_manifests_are_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="training_threshold"):
        parse_parameters({"training_threshold": 0.5})


def test_a_value_of_none_counts_as_absent() -> None:
    options, criteria = parse_parameters({"judge_max_tokens": None, "scoring_mode": None, "num_examples": None})
    assert options.judge_max_tokens == 1024 and options.model_fields_set == set()
    assert criteria.scoring_mode is ScoringMode.AUTO


def test_the_loader_gets_the_limits_and_the_mode() -> None:
    options, _ = parse_parameters({"max_file_bytes": 2048, "max_subagent_depth": 0, "tolerant_inputs": True})
    loader = options.load_options()
    assert (loader.max_file_bytes, loader.max_subagent_depth, loader.strict) == (2048, 0, False)
    assert ScoringOptions().load_options() == LoadOptions()
