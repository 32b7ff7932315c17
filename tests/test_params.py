from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from tracegrade.params import field_type_name, parameter_table


class Colour(Enum):
    RED = "red"


class Model(BaseModel):
    path: str = Field(description="Where to read.")
    count: Annotated[int, Field(ge=1)] = Field(default=3, description="How many.")
    strict: bool = Field(default=False, description="Refuse bad input.")
    colour: Colour = Field(default=Colour.RED, description="Paint.")
    limit: float | None = Field(default=None, description="Upper bound.")
    extra: dict[str, Any] | str | None = Field(default=None, description="Anything.")
    quiet: int | bool = Field(default=False, description="Less output.")


@pytest.mark.parametrize(
    ("annotation", "name"),
    [
        (bool, "boolean"), (int, "integer"), (float, "float"), (str, "string"), (dict[str, int], "object"),
        (list[str], "array"), (Colour, "string"), (int | None, "integer"), (Annotated[float, "x"], "float"),
        (str | dict[str, Any], "object"), (bytes, "string"),
    ],
)
def test_each_annotation_has_its_json_type_name(annotation: Any, name: str) -> None:
    assert field_type_name(annotation) == name


def test_a_table_lists_the_named_fields_first_then_the_rest_in_order() -> None:
    assert [row[0] for row in parameter_table(Model, first=("strict", "path"))] == [
        "strict", "path", "count", "colour", "limit", "extra", "quiet"
    ]


def test_a_description_ends_with_the_default_as_written_on_a_command_line() -> None:
    rows = {name: (kind, text) for name, kind, text in parameter_table(Model)}
    assert rows["path"] == ("string", "Where to read.")
    assert rows["count"] == ("integer", "How many. Default 3.")
    assert rows["strict"] == ("boolean", "Refuse bad input. Default false.")
    assert rows["colour"] == ("string", "Paint. Default red.")
    assert rows["limit"] == ("float", "Upper bound.")  # no default shown for None
    assert rows["quiet"] == ("integer", "Less output.")  # False is no default of a non-boolean
