from __future__ import annotations

from pathlib import Path

import msgspec
import orjson
import pytest

from tests.atif.output.test_compare import runs
from tracegrade.atif import read_results
from tracegrade.atif.output._compared import ComparedNode, ComparedStep, decode_results

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


@pytest.mark.parametrize(("view", "record"), [("ComparedStep", "StepResult"), ("ComparedNode", "NodeResult")])
def test_the_comparison_view_is_a_subset_of_the_record_it_reads(view: str, record: str) -> None:
    """The msgspec view declares no field of its own: each is the pydantic record's, with the same default."""
    import msgspec
    from pydantic_core import PydanticUndefined

    from tracegrade.atif.output import _compared
    from tracegrade.atif.scoring import _records

    struct, model = getattr(_compared, view), getattr(_records, record).model_fields
    for field in msgspec.structs.fields(struct):
        assert field.name in model, f"{view}.{field.name} is not a field of {record}"
        default = model[field.name].default
        if field.default is not msgspec.NODEFAULT and default is not PydanticUndefined:
            assert field.default == default, f"{view}.{field.name}: default {field.default!r}, {record}: {default!r}"
