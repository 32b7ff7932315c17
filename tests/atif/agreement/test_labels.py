from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade.atif.agreement._labels import LABEL_CATEGORIES, parse_labels, read_labels
from tracegrade.errors import InputError


def parse(*lines: str) -> list:
    return list(parse_labels([line.encode() for line in lines], "labels.jsonl"))


def test_reads_step_and_trajectory_labels_with_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        '{"trajectory_id": "t", "failed": true}\n\n{"node_id": "a.json", "step": 3, "score": 2, '
        '"decisive": true, "category": "context_loss"}\n'
    )
    first, second = read_labels(path)
    assert (first.line, first.is_step, first.failed) == (1, False, True)
    assert (second.line, second.step, second.score, second.decisive) == (3, 3, 2.0, True)
    assert second.target() == "node_id=a.json step=3"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"trajectory_id": "t", "failed": tru}', "labels.jsonl:2: "),
        ('["t"]', "labels.jsonl:2: expected a JSON object, got list"),
        ('{"trajectory_id": "t", "failed": true, "falied": true}', "labels.jsonl:2: falied: Extra inputs"),
        ('{"trajectory_id": "t", "step": 1, "category": "oops"}', "labels.jsonl:2: category: must be"),
        ('{"trajectory_id": "t", "category": "none"}', "labels.jsonl:2: category and decisive need a step"),
        ('{"failed": true}', "labels.jsonl:2: name the trajectory"),
        ('{"trajectory_id": "t", "step": 1, "step_id": 1, "failed": true}', "labels.jsonl:2: give step or step_id"),
        ('{"trajectory_id": "t", "score": true}', "labels.jsonl:2: score: Input should be a valid number"),
        ('{"trajectory_id": "t", "score": "0.5"}', "labels.jsonl:2: score: Input should be a valid number"),
        ('{"trajectory_id": "t", "score": NaN}', "labels.jsonl:2: NaN and Infinity are not JSON"),
        ('{"trajectory_id": "t", "failed": "yes"}', "labels.jsonl:2: failed: Input should be a valid boolean"),
        ('{"trajectory_id": "t", "step": 0, "failed": true}', "labels.jsonl:2: step: Input should be greater"),
        ('{"trajectory_id": "t", "step": 2}', "labels.jsonl:2: give at least one of"),
        ('{"trajectory_id": "t", "trajectory_id": "u", "failed": true}', "labels.jsonl:2: duplicate key"),
    ],
)
def test_a_bad_line_is_an_error_naming_file_and_line(line: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse('{"trajectory_id": "ok", "failed": false}', line)
    assert caught.value.message.startswith(message), caught.value.message


def test_an_empty_file_is_an_error() -> None:
    with pytest.raises(InputError, match="no labels"):
        parse("", "  ")


def test_categories_are_the_judge_taxonomy() -> None:
    assert LABEL_CATEGORIES == (
        "tool_selection_failure",
        "context_loss",
        "policy_boundary_violation",
        "reasoning_failure",
        "none",
    )


def test_a_reviewer_is_read_and_a_retraction_withdraws_that_reviewers_latest_label_of_the_step() -> None:
    labels = parse(
        '{"node_id": "a.json", "step": 1, "reviewer": "ann", "failed": true}',
        '{"node_id": "a.json", "step": 1, "reviewer": "bob", "failed": false}',
        '{"node_id": "a.json", "step": 1, "reviewer": "ann", "retract": true}',
        '{"node_id": "a.json", "step": 1, "reviewer": "ann", "failed": false, "score": 0.75}',
        '{"node_id": "a.json", "step": 2, "reviewer": "ann", "score": 0.5}',
    )
    assert [(label.line, label.reviewer, label.failed) for label in labels] == [
        (2, "bob", False), (4, "ann", False), (5, "ann", None)
    ]


def test_two_retractions_walk_back_two_labels_and_a_third_retracts_nothing() -> None:
    lines = [
        '{"node_id": "a.json", "step": 1, "reviewer": "ann", "failed": true}',
        '{"node_id": "a.json", "step": 1, "reviewer": "ann", "failed": false}',
        '{"node_id": "a.json", "step": 1, "reviewer": "ann", "retract": true}',
    ]
    assert [label.line for label in parse(*lines)] == [1]
    retract = '{"node_id": "a.json", "step": 1, "reviewer": "ann", "retract": true}'
    with pytest.raises(InputError, match="no labels"):
        parse(*lines, retract)
    with pytest.raises(InputError, match=r"labels.jsonl:5: retracts nothing .*by reviewer 'ann'"):
        parse(*lines, retract, retract)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"node_id": "a.json", "step": 1, "reviewer": "bob", "retract": true}'], "labels.jsonl:1: retracts nothing"),
        (['{"node_id": "a.json", "step": 1, "reviewer": "ann", "failed": true}',
          '{"trajectory_id": "A", "step": 1, "reviewer": "ann", "retract": true}'], "labels.jsonl:2: retracts nothing"),
        (['{"node_id": "a.json", "step": 1, "retract": true, "failed": true}'], "a retraction gives no score"),
        (['{"node_id": "a.json", "step": 1, "retract": false, "failed": true}'], "retract: give true or leave it out"),
        (['{"node_id": "a.json", "step": 1, "reviewer": " ", "failed": true}'], "reviewer: must be printable text"),
        (['{"node_id": "a.json", "step": 1, "reviewer": "a\\nb", "failed": true}'], "reviewer: must be printable text"),
        (['{"node_id": "a.json", "step": 1, "reviewer": 7, "failed": true}'],
         "reviewer: Input should be a valid string"),
    ],
)
def test_bad_reviewers_and_retractions_name_the_line(lines: list[str], message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse(*lines)


def test_an_empty_file_is_allowed_only_when_asked() -> None:
    assert parse_labels([b"", b"  "], "labels.jsonl", allow_empty=True) == ()
    with pytest.raises(InputError, match="no labels"):
        parse_labels([b""], "labels.jsonl")
