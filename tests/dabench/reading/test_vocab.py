from __future__ import annotations

import pytest

from tracegrade.dabench.reading._records import Phase
from tracegrade.dabench.reading._vocab import ACTION_COLUMNS, STAGE_PREFIX, action_column, inferred_phase, tool_category


@pytest.mark.parametrize(
    ("tool", "category"),
    [("read_csv", "explore"), ("inspect_sqlite_schema", "explore"), ("execute_python", "execute"),
     ("query_dataframe", "execute"), ("answer", "answer"), ("mark_node_done", "control"), ("web_search", "other")],
)
def test_tool_categories(tool: str, category: str) -> None:
    assert tool_category(tool) == category


@pytest.mark.parametrize(
    ("action", "previous", "phase"),
    [("list_context", None, Phase.UNDERSTAND), ("__plan__", Phase.UNDERSTAND, Phase.PLAN),
     ("replan", None, Phase.PLAN), ("__reflect__", None, Phase.VERIFY), ("critic", None, Phase.VERIFY),
     ("answer", None, Phase.SUMMARIZE), ("execute_python", None, Phase.EXECUTE), ("anything", None, Phase.EXECUTE),
     ("__error__", Phase.PLAN, Phase.PLAN), ("__error__", None, Phase.UNDERSTAND)],
)
def test_the_phase_of_a_step_without_one_follows_its_action(action: str, previous: Phase | None, phase: Phase) -> None:
    assert inferred_phase(action, previous) is phase


def test_reading_the_knowledge_file_counts_apart_from_other_documents() -> None:
    assert action_column("read_doc", '{"path": "context/Knowledge.md"}') == "read_knowledge"
    assert action_column("read_doc", '{"path": "context/notes.md"}') == "read_doc"
    assert action_column("web_search", "{}") == "other_tool"
    assert set(ACTION_COLUMNS) >= {"read_knowledge", "other_tool", "planner"}


def test_every_phase_has_a_stage_column_prefix() -> None:
    assert set(STAGE_PREFIX) == set(Phase)
    assert STAGE_PREFIX[Phase.AGGREGATE] == STAGE_PREFIX[Phase.SUMMARIZE] == "summary"
