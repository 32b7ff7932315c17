"""Reading Foliqant-shaped results: owner records of a path, attempt status, invocations, usage."""

from __future__ import annotations

import functools
import re
from typing import Any

from tracegrade.suites.checking._records import USAGE_FIELDS, Invocation

__all__ = ["ERROR_CODE_HINTS", "EXECUTION_STATUSES", "attempt_status", "invocations", "owner_status", "read_usage"]

EXECUTION_STATUSES: tuple[str, ...] = ("completed", "needs_review", "failed", "cancelled")
"""The values ``/execution/status`` may take (the seed's workflow statuses)."""
ERROR_CODE_HINTS: dict[str, str] = {
    "unknown_execution_status": f"/execution/status is none of {', '.join(EXECUTION_STATUSES)}",
}
"""What an attempt's error code means, for codes a reader cannot guess; shown beside the failure counts."""
_RUN_STATUSES = frozenset(EXECUTION_STATUSES)
_SAFE_CODE = re.compile(r"^[a-z][a-z0-9_.-]{0,63}$")


def _record(container: Any, key: str) -> dict[str, Any] | None:
    if isinstance(container, dict):
        value = container.get(key)
    elif isinstance(container, list) and key.isascii() and key.isdigit() and int(key) < len(container):
        value = container[int(key)]
    else:
        return None
    return value if isinstance(value, dict) else None


def owner_status(result: dict[str, Any], tokens: tuple[str, ...]) -> str | None:
    """Status of the innermost flow or step record that owns the path ``tokens``.

    Without any owning record, the workflow execution status (``/execution/status``) when present.
    """
    status = _execution_status(result)
    node: dict[str, Any] = result
    kind, i, n = "root", 0, len(tokens)
    while i + 1 < n:
        head, key = tokens[i], tokens[i + 1]
        step = 2
        if kind == "root" and head == "flows":
            found, kind = _record(node.get("flows"), key), "flow"
        elif kind == "flow" and head == "steps":
            found, kind = _record(node.get("steps"), key), "step"
        elif kind == "flow" and head == "attempts":
            found = _record(node.get("attempts"), key)
        elif kind == "step" and head in ("result", "partial_result") and key == "items" and i + 2 < n:
            holder = _record(node, head)
            found, kind, step = _record(holder.get("items") if holder else None, tokens[i + 2]), "flow", 3
        else:
            break
        if found is None:
            break
        node, i = found, i + step
        if isinstance(node.get("status"), str):
            status = node["status"]
    return status


def _execution_status(result: dict[str, Any]) -> str | None:
    execution = result.get("execution")
    status = execution.get("status") if isinstance(execution, dict) else None
    return status if isinstance(status, str) else None


def attempt_status(result: dict[str, Any]) -> tuple[str, str | None]:
    """The attempt's workflow status and, for failed/cancelled runs, a safe error code.

    A result without ``/execution/status`` counts as ``completed``; a status that is none of
    :data:`EXECUTION_STATUSES` makes the result invalid (``error``, ``unknown_execution_status``).
    """
    execution = result.get("execution")
    if not isinstance(execution, dict) or "status" not in execution:
        return "completed", None
    status = execution["status"]
    if status not in _RUN_STATUSES:
        return "error", "unknown_execution_status"
    if status in ("completed", "needs_review"):
        return status, None
    error = execution.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return status, code if isinstance(code, str) and _SAFE_CODE.match(code) else f"workflow_{status}"


def read_usage(usage: Any) -> dict[str, int | None] | None:
    """The known usage fields (a missing or non-count field is unknown: None, never 0)."""
    if not isinstance(usage, dict):
        return None
    return {name: value if type(value) is int and value >= 0 else None
            for name in USAGE_FIELDS for value in (usage.get(name),)}


@functools.lru_cache(maxsize=4096)
def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def invocations(result: dict[str, Any]) -> tuple[Invocation, ...]:
    """Every flow and step record in ``result``, nested collection items and flow attempts included."""
    found: list[Invocation] = []
    flows = result.get("flows")
    if isinstance(flows, dict):
        for name, record in flows.items():
            if isinstance(record, dict):
                if "attempts" in record or "retry" in record:
                    _flow(name, record, _flow_path(name), found)
                else:  # what _flow does for a record without attempts or a retry
                    _flow_run(name, record, _flow_path(name), found)
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _flow_path(name: str) -> str:
    return f"/flows/{_escape(name)}"


def _flow(name: str, record: dict[str, Any], path: str, found: list[Invocation]) -> None:
    attempts = record.get("attempts")
    if isinstance(attempts, list) and attempts:
        for number, attempt in enumerate(attempts):
            if isinstance(attempt, dict):
                _flow_run(name, attempt, f"{path}/attempts/{number}", found)
    else:
        _flow_run(name, record, path, found)
    retry = record.get("retry")
    if isinstance(retry, dict):
        _flow(name, retry, f"{path}/retry", found)


def _invocation(flow: str, step: str | None, path: str, status: str, origin: str | None = None) -> Invocation:
    """The invocation record with these fields, shared: attempts of a suite mostly repeat the same ones."""
    key = (flow, step, path, status, origin)
    found = _SEEN.get(key)
    if found is None:
        if len(_SEEN) >= 65536:
            _SEEN.clear()
        found = _SEEN[key] = Invocation(flow, step, path, status, origin)
    return found


_SEEN: dict[tuple[str, str | None, str, str, str | None], Invocation] = {}
"""Invocation records already made (they are frozen), by their fields."""


def _flow_run(name: str, record: dict[str, Any], path: str, found: list[Invocation]) -> None:
    seen = _SEEN
    status = record.get("status")
    key: tuple[str, str | None, str, str, str | None] = (
        name, None, path, status if isinstance(status, str) else "unknown", None)
    found.append(seen.get(key) or _invocation(*key))
    steps = record.get("steps")
    if not isinstance(steps, dict):
        return
    for step_name, step in steps.items():
        if not isinstance(step, dict):
            continue
        step_path = _step_path(path, step_name)
        selection = step.get("selection")
        origin = selection.get("origin") if isinstance(selection, dict) else None
        status = step.get("status")
        key = (name, step_name, step_path, status if isinstance(status, str) else "unknown",
               origin if isinstance(origin, str) else None)
        found.append(seen.get(key) or _invocation(*key))
        if step.get("kind") == "flow_collection":
            _items(step, step_path, found)


@functools.lru_cache(maxsize=65536)
def _step_path(path: str, step: str) -> str:
    return f"{path}/steps/{_escape(step)}"


def _items(step: dict[str, Any], step_path: str, found: list[Invocation]) -> None:
    for key in ("result", "partial_result"):
        holder = step.get(key)
        items = holder.get("items") if isinstance(holder, dict) else None
        for number, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, dict):
                flow = item.get("flow")
                _flow(flow if isinstance(flow, str) else "?", item, f"{step_path}/{key}/items/{number}", found)
