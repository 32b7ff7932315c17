from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson


def trajectory(steps: int = 2, **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": i + 1, "source": "user" if i == 0 else "agent", "message": f"m{i}"} for i in range(steps)
        ],
    }
    doc.update(extra)
    return doc


def delegating(*refs: dict[str, Any], **extra: Any) -> dict[str, Any]:
    doc = trajectory(1, **extra)
    doc["steps"].append(
        {
            "step_id": 2,
            "source": "agent",
            "message": "delegate",
            "observation": {"results": [{"subagent_trajectory_ref": list(refs)}]},
        }
    )
    return doc


def write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(doc if isinstance(doc, bytes) else orjson.dumps(doc))
    return path
