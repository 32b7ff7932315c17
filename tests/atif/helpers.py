from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tracegrade.atif._run import criteria_source, run_parameters
from tracegrade.atif.scoring._params import parse_parameters
from tracegrade.atif.scoring._results import RunParameters
from tracegrade.judge.testing import FakeJudge


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


def recorded_parameters(**values: Any) -> RunParameters:
    """What a run with these job parameters records (the judge: model ``fake``; every input read)."""
    options, criteria = parse_parameters(values)
    judge = FakeJudge(lambda request: {})
    return run_parameters(options, criteria, judge, complete=True, criteria_source=criteria_source(criteria, False))
