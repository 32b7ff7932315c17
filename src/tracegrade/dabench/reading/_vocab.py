"""Fixed vocabularies: tool categories, inferred phases, stage and action column names."""

from __future__ import annotations

import functools

from tracegrade.dabench.reading._records import Phase

__all__ = ["ACTION_COLUMNS", "CRITIC_TYPES", "DAG_ACTIONS", "EXECUTE_TOOLS", "EXPLORE_TOOLS", "LEGACY_STAGE",
           "PLAN_ACTIONS", "SPECIALISTS", "STAGE_PREFIX", "action_column", "inferred_phase", "tool_category"]

EXPLORE_TOOLS = frozenset(
    {"list_context", "read_csv", "read_json", "read_doc", "read_knowledge", "inspect_sqlite_schema", "inspect_data"}
)
EXECUTE_TOOLS = frozenset({"execute_python", "execute_context_sql", "query_dataframe"})
CONTROL_TOOLS = frozenset({"mark_node_done"})
PLAN_ACTIONS = frozenset({"__plan__", "plan", "planner", "replan"})
DAG_ACTIONS = frozenset({"__plan__", "__dag_node_start__", "__dag_node_done__", "__reflect__"})
CRITIC_TYPES = frozenset({"critic", "reflector"})
SPECIALISTS = ("schema", "domain", "document")

LEGACY_STAGE = {Phase.UNDERSTAND: "explore", Phase.PLAN: "plan", Phase.EXECUTE: "execute", Phase.VERIFY: "verify",
                Phase.AGGREGATE: "execute", Phase.SUMMARIZE: "answer"}
STAGE_PREFIX = {Phase.UNDERSTAND: "understanding", Phase.PLAN: "planning", Phase.EXECUTE: "execution",
                Phase.VERIFY: "verification", Phase.AGGREGATE: "summary", Phase.SUMMARIZE: "summary"}
ACTION_COLUMNS = ("list_context", "read_csv", "read_json", "read_doc", "read_knowledge", "inspect_sqlite_schema",
                  "inspect_data", "execute_context_sql", "execute_python", "query_dataframe", "mark_node_done",
                  "answer", "planner", "other_tool")


@functools.lru_cache(maxsize=1024)
def tool_category(tool: str) -> str:
    """explore, execute, answer, control or other."""
    if tool in EXPLORE_TOOLS:
        return "explore"
    if tool in EXECUTE_TOOLS:
        return "execute"
    if tool == "answer":
        return "answer"
    if tool in CONTROL_TOOLS:
        return "control"
    return "other"


def inferred_phase(action: str, previous: Phase | None) -> Phase:
    """The phase of a step whose trace names no phase, from its action."""
    if action in EXPLORE_TOOLS:
        return Phase.UNDERSTAND
    if action in PLAN_ACTIONS:
        return Phase.PLAN
    if action == "__reflect__" or action in ("verify", "critic"):
        return Phase.VERIFY
    if action == "answer":
        return Phase.SUMMARIZE
    if action == "__error__":
        return previous or Phase.UNDERSTAND
    return Phase.EXECUTE


def action_column(tool: str, args_key: str) -> str:
    """The per-action column a tool call counts under (``read_doc`` of knowledge.md is read_knowledge)."""
    if tool == "read_doc" and "knowledge.md" in args_key.lower():
        return "read_knowledge"
    return tool if tool in _ACTION_SET else "other_tool"


_ACTION_SET = frozenset(ACTION_COLUMNS)
