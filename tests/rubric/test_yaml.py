import pytest

from tracegrade.rubric import parse_rubric_text
from tracegrade.rubric._yaml import MAX_NESTING, TextParseError


def test_plain_yaml_rubric_parses():
    text = "name: q\ncriteria:\n  - name: c\n    description: d\n    weight: 2\n"
    assert parse_rubric_text(text) == {"name": "q", "criteria": [{"name": "c", "description": "d", "weight": 2}]}


def test_json_text_is_parsed_as_json():
    assert parse_rubric_text('  {"criteria": []}') == {"criteria": []}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("BILLION_LAUGHS", "anchors"),
        ("base: &x {a: 1}\nother: *x\n", "anchors"),
        ("criteria: !!python/object/apply:os.system ['echo hi']\n", "tags"),
        ("criteria: !custom x\n", "tags"),
        ("%TAG ! tag:example.com,2000:\n---\ncriteria: []\n", "directives"),
    ],
)
def test_anchors_aliases_tags_and_directives_are_refused(text, reason, billion_laughs):
    text = billion_laughs if text == "BILLION_LAUGHS" else text
    with pytest.raises(TextParseError, match=reason):
        parse_rubric_text(text)


def test_alias_without_anchor_is_refused_before_composition():
    with pytest.raises(TextParseError, match="aliases"):
        parse_rubric_text("a: *nowhere\n")


def test_refusal_names_line_and_column():
    with pytest.raises(TextParseError) as info:
        parse_rubric_text("name: q\ncriteria: !!str x\n")
    assert info.value.location == "line 2, column 11"


def test_deep_nesting_is_refused():
    with pytest.raises(TextParseError, match="nesting"):
        parse_rubric_text("x: " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1))


def test_deep_json_nesting_does_not_crash():
    with pytest.raises(TextParseError, match="nesting"):
        parse_rubric_text("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("text", ["a: 1\na: 2\n", '{"a": 1, "a": 2}'])
def test_duplicate_keys_are_refused(text):
    with pytest.raises(TextParseError, match="duplicate key 'a'"):
        parse_rubric_text(text)


@pytest.mark.parametrize(
    ("text", "reason"),
    [('{"w": NaN}', "NaN and Infinity are not JSON"), ('{"w": -Infinity}', "Infinity"),
     ('{"w": 1,}', "line 1, column 8: trailing comma")],
)
def test_json_is_strict(text, reason):
    with pytest.raises(TextParseError, match=reason):
        parse_rubric_text(text)


def test_multiple_documents_are_refused():
    with pytest.raises(TextParseError, match="single document"):
        parse_rubric_text("a: 1\n---\nb: 2\n")
