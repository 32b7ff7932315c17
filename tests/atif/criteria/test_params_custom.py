import json
import math
import re
from pathlib import Path

import pytest

from tracegrade.atif.criteria._resolver import build_resolver
from tracegrade.errors import ConfigError, InputError
from tracegrade.rubric import Aggregation, ScoringMode


def criterion(name="correctness", description="Addresses the task", weight=1):
    return {"name": name, "description": description, "weight": weight}


def custom(rubric, **extra):
    return {"scoring_mode": "custom", "provider_params": {"rubric": rubric}, **extra}


def rejected(params, fake_derive, match):
    """Building a resolver from bad params raises ConfigError and never derives."""
    with pytest.raises(ConfigError, match=match) as info:
        build_resolver(params, derive=fake_derive, template_hash="tpl")
    assert fake_derive.calls == []
    return info.value


def test_object_rubric_is_validated_and_used(fake_derive):
    rubric = {"name": "answer_quality", "aggregation": "minimum", "criteria": [criterion(), criterion("clarity")]}
    resolver = build_resolver(custom(rubric))
    assert resolver.params.scoring_mode is ScoringMode.CUSTOM
    assert resolver.params.rubric.name == "answer_quality"
    assert resolver.params.rubric.aggregation is Aggregation.MINIMUM
    assert [c.name for c in resolver.params.rubric.criteria] == ["correctness", "clarity"]


def test_yaml_string_rubric_and_legacy_custom_rubric():
    text = "name: q\ncriteria:\n  - name: correctness\n    description: Addresses the task\n    weight: 2\n"
    for params in (custom(text), {"scoring_mode": "custom", "custom_rubric": text}):
        rubric = build_resolver(params).params.rubric
        assert rubric.criteria[0].weight == 2.0
        assert rubric.name == "q"


def test_custom_rubric_path_reads_the_file(tmp_path: Path):
    path = tmp_path / "rubric.json"
    path.write_text(json.dumps({"criteria": [criterion()]}))
    params = build_resolver({"scoring_mode": "custom", "custom_rubric_path": str(path)}).params
    assert params.custom_rubric_source == "custom_rubric_path"
    assert params.custom_rubric_path == path
    assert params.rubric.name == "custom"


def test_33_criteria_are_refused(fake_derive):
    rubric = {"criteria": [criterion(f"c{i}") for i in range(33)]}
    rejected(custom(rubric), fake_derive, r"provider_params.rubric: criteria must hold 1 to 32 items, got 33")


def test_no_criteria_are_refused(fake_derive):
    rejected(custom({"criteria": []}), fake_derive, "1 to 32 items, got 0")


def test_duplicate_criterion_names_are_refused(fake_derive):
    rubric = {"criteria": [criterion("x"), criterion("x")]}
    rejected(custom(rubric), fake_derive, "'x' appears twice")


@pytest.mark.parametrize("weight", [0, -1, math.nan, math.inf, True, "1", None])
def test_bad_weights_are_refused(fake_derive, weight):
    error = rejected(custom({"criteria": [criterion("x", weight=weight)]}), fake_derive, "weight")
    assert str(error).startswith("provider_params.rubric: criterion 'x' weight must be a positive finite number")


@pytest.mark.parametrize("description", ["", "   ", "d" * 2001, 7])
def test_bad_descriptions_are_refused(fake_derive, description):
    rejected(custom({"criteria": [criterion("x", description=description)]}), fake_derive, "criterion 'x' description")


def test_2000_char_description_is_accepted():
    rubric = build_resolver(custom({"criteria": [criterion(description="d" * 2000)]})).params.rubric
    assert len(rubric.criteria[0].description) == 2000


def test_missing_description_and_unknown_keys_are_refused(fake_derive):
    rejected(
        custom({"criteria": [{"name": "x"}]}), fake_derive, r"criteria\[0\]: missing required key\(s\) description"
    )
    rejected(custom({"criteria": [criterion()], "extra": 1}), fake_derive, "unknown key")


def test_bad_aggregation_is_refused(fake_derive):
    rejected(custom({"criteria": [criterion()], "aggregation": "median"}), fake_derive, "aggregation must be one of")


def test_17_kib_rubric_is_refused(fake_derive):
    text = "criteria:\n  - name: x\n    description: " + "d" * 1000 + "\n" + "# padding\n" * 1700
    assert len(text.encode()) > 17 * 1024
    for params in (custom(text), {"scoring_mode": "custom", "custom_rubric": text}):
        error = rejected(params, fake_derive, "limit is 16,384")
        assert error.code == "limit_exceeded"


def test_large_object_rubric_is_refused(fake_derive):
    rubric = {"criteria": [criterion(f"c{i}", description="d" * 1000) for i in range(17)]}
    rejected(custom(rubric), fake_derive, "limit is 16,384")


def test_oversized_file_is_refused_without_reading_it(tmp_path: Path, monkeypatch, fake_derive):
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:
        handle.truncate(2 * 1024**3)  # sparse: 2 GiB on paper, nothing on disk

    def no_open(*args, **kwargs):
        raise AssertionError("the file must not be opened")

    monkeypatch.setattr(Path, "open", no_open)
    rejected({"scoring_mode": "custom", "custom_rubric_path": str(path)}, fake_derive, "16,384-byte limit")


def test_yaml_alias_bomb_is_refused(fake_derive, billion_laughs):
    rejected(custom(billion_laughs), fake_derive, "anchors")


def test_yaml_python_tag_is_refused(fake_derive):
    text = "criteria: !!python/object/apply:os.system ['touch /tmp/pwned']\n"
    rejected({"scoring_mode": "custom", "custom_rubric": text}, fake_derive, "custom_rubric: .*tags")


def test_alias_bomb_in_file_is_an_input_error_naming_the_file(tmp_path: Path, billion_laughs):
    path = tmp_path / "bomb.yaml"
    path.write_text(billion_laughs)
    with pytest.raises(InputError, match=rf"custom_rubric_path: {re.escape(str(path))}: line 2, column 4: anchors"):
        build_resolver({"scoring_mode": "custom", "custom_rubric_path": str(path)})


def test_two_rubric_sources_are_refused(fake_derive):
    params = custom({"criteria": [criterion()]}, custom_rubric="criteria: []")
    rejected(params, fake_derive, r"^provider_params.rubric, custom_rubric: give exactly one")


def test_no_rubric_source_in_custom_mode_is_refused(fake_derive):
    error = rejected({"scoring_mode": "custom", "provider_params": {}}, fake_derive, "none given")
    assert "provider_params.rubric, custom_rubric, custom_rubric_path" in str(error)


def test_missing_rubric_file_is_a_config_error(tmp_path: Path, fake_derive):
    rejected({"scoring_mode": "custom", "custom_rubric_path": str(tmp_path / "nope.yaml")}, fake_derive, "not found")


def test_rubric_of_wrong_type_is_refused(fake_derive):
    rejected(custom(["criteria"]), fake_derive, "must be an object or a YAML/JSON string")
    rejected(custom("- just\n- a list\n"), fake_derive, "must be an object")


def test_rubric_file_that_is_not_utf8_is_an_input_error(tmp_path: Path):
    path = tmp_path / "rubric.yaml"
    path.write_bytes(b"criteria:\n  - name: \xff\n")
    with pytest.raises(InputError, match="byte 20: not valid UTF-8"):
        build_resolver({"scoring_mode": "custom", "custom_rubric_path": str(path)})


def test_a_criterion_without_a_weight_is_refused(fake_derive):
    rubric = {"criteria": [{"name": "x", "description": "Addresses the task"}]}
    rejected(custom(rubric), fake_derive, r"criteria\[0\]: missing required key\(s\) weight")


def test_criterion_names_of_2000_characters_are_accepted_and_longer_refused(fake_derive):
    rubric = build_resolver(custom({"criteria": [criterion(name="n" * 2000)]})).params.rubric
    assert rubric.criteria[0].name == "n" * 2000
    rejected(custom({"criteria": [criterion(name="n" * 2001)]}), fake_derive, "at most 2,000|2000")
