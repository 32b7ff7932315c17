from __future__ import annotations

import re
from pathlib import Path

import msgspec
import orjson
import pytest
from pydantic import ValidationError

from tests.atif.output.test_compare import runs
from tracegrade.atif import read_results
from tracegrade.atif.output._compared import NODE_FIELDS, STEP_FIELDS, ComparedNode, ComparedStep, decode_results
from tracegrade.atif.scoring import NodeResult, StepResult, StepStatus

__all__ = ["runs"]


def _document(folder: Path) -> dict[str, object]:
    return orjson.loads((folder / "evaluation_results.json").read_bytes())  # type: ignore[no-any-return]


def test_the_fields_read_are_those_of_the_full_results(runs: dict[str, Path]) -> None:
    side = decode_results((runs["sub_base"] / "evaluation_results.json").read_bytes())
    full = read_results(runs["sub_base"])
    assert (side.job_id, side.created_at, side.shard) == (full.job_id, full.created_at, full.shard)
    assert (side.parameters, side.summary, side.provenance) == (full.parameters, full.summary, full.provenance)
    assert len(side.nodes) == len(full.nodes) == 2
    for node, whole in zip(side.nodes, full.nodes, strict=True):
        for name in set(ComparedNode.__struct_fields__) - {"steps"}:
            assert getattr(node, name) == getattr(whole, name), name
        assert len(node.steps) == len(whole.steps)
        for step, entire in zip(node.steps, whole.steps, strict=True):
            for name in set(ComparedStep.__struct_fields__) - {"content"}:
                assert getattr(step, name) == getattr(entire, name), name
            assert step.content is not None and entire.content is not None
            assert step.content.message == entire.content.message


def test_a_node_of_another_shape_is_refused_naming_its_place(runs: dict[str, Path]) -> None:
    document = _document(runs["base"])
    document["nodes"][1]["depth"] = "0"  # type: ignore[index]
    with pytest.raises(msgspec.ValidationError, match=r"Expected `int`, got `str` - at `\$\.nodes\[1\]\.depth`"):
        decode_results(orjson.dumps(document))


def test_odd_parameters_are_refused_naming_their_place(runs: dict[str, Path]) -> None:
    document = _document(runs["base"])
    document["parameters"]["completion_threshold"] = "high"  # type: ignore[index]
    with pytest.raises(ValueError, match=r"^Input should be a valid number.* - at `\$\.parameters\.completion_thresh"):
        decode_results(orjson.dumps(document))


def test_another_format_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match=r"at `\$\.format`"):
        decode_results(b'{"format": "something-else/1", "job_id": "x"}')


@pytest.mark.parametrize(("edit", "place"), [("step", "$.nodes[0].steps[0].score"),
                                           ("own_score", "$.nodes[0].own_score")])
def test_a_score_the_record_refuses_is_refused_by_the_comparison_too(
    runs: dict[str, Path], edit: str, place: str
) -> None:
    """The view is made from the record: the record's bounds hold on both reads."""
    document = _document(runs["base"])
    node = document["nodes"][0]  # type: ignore[index]
    if edit == "step":
        node["steps"][0]["score"] = 1.5
    else:
        node["own_score"] = 1.5
    with pytest.raises(msgspec.ValidationError, match=rf"Expected `float` <= 1.0 - at `{re.escape(place)}`"):
        decode_results(orjson.dumps(document))
    with pytest.raises(ValidationError, match="less than or equal to 1"):
        NodeResult.model_validate(node)


def test_the_view_holds_the_fields_it_names_with_the_records_defaults() -> None:
    step = ComparedStep(index=1, segment=0, step_id=1, source="agent", status=StepStatus.SCORED)
    assert [f.name for f in msgspec.structs.fields(ComparedStep)] == list(STEP_FIELDS)
    assert [f.name for f in msgspec.structs.fields(ComparedNode)] == list(NODE_FIELDS)
    record = StepResult(index=1, segment=0, step_id=1, source="agent", status=StepStatus.SCORED)
    assert {name: getattr(step, name) for name in STEP_FIELDS} == {name: getattr(record, name) for name in STEP_FIELDS}
