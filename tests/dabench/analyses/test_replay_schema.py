from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from tracegrade.dabench import TaskReplay
from tracegrade.dabench.analyses._replay_schema import replay_schema

SCHEMA = Path(__file__).resolve().parents[3] / "docs" / "schemas" / "dabench-task-replay.schema.json"


def test_the_schema_file_is_generated_from_the_model() -> None:
    assert orjson.loads(SCHEMA.read_bytes()) == replay_schema()


def test_the_schema_is_draft_2020_12_and_refuses_unknown_keys() -> None:
    schema = replay_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False and "run_context" in schema["required"]


@pytest.fixture
def replay(example_out: Path) -> dict[str, Any]:
    document: dict[str, Any] = orjson.loads((example_out / "task_3" / "task_replay.json").read_bytes())
    return document


def test_every_replay_of_the_example_reads_back(example_out: Path) -> None:
    for task in ("task_1", "task_2", "task_3"):
        TaskReplay.model_validate_json((example_out / task / "task_replay.json").read_bytes())


@pytest.mark.parametrize("where", [(), ("run_context",), ("run_context", "time_accounting")])
def test_an_unknown_key_at_any_level_is_refused(replay: dict[str, Any], where: tuple[str, ...]) -> None:
    target = replay
    for key in where:
        target = target[key]
    target["surprise"] = 1
    with pytest.raises(ValidationError, match="surprise"):
        TaskReplay.model_validate(replay)


def test_a_missing_field_is_refused_rather_than_defaulted(replay: dict[str, Any]) -> None:
    del replay["failure_attribution"]
    with pytest.raises(ValidationError, match="failure_attribution"):
        TaskReplay.model_validate(replay)
