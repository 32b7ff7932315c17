from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tracegrade.suites import Case, Dataset, load_dataset
from tracegrade.suites.reading._dataset import Metric, SuiteSpec


def expectation(name: str, path: str, expected: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "path": path, "expected": expected, **extra}


def case(case_id: str, *expectations: dict[str, Any], payload: Any = None) -> dict[str, Any]:
    return {"id": case_id, "input": {"payload": payload if payload is not None else {"q": case_id}},
            "expectations": list(expectations)}


def manifest(*suites: dict[str, Any], name: str = "gold", revision: str = "1") -> dict[str, Any]:
    return {"name": name, "revision": revision, "suites": list(suites)}


def suite(name: str, cases: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "workflow": "wf", "cases": cases, **extra}


def write_dataset(folder: Path, data: dict[str, Any] | str, name: str = "dataset.json") -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def load(folder: Path, data: dict[str, Any]) -> Dataset:
    return load_dataset(write_dataset(folder, data))


def suite_spec(cases: list[dict[str, Any]], metrics: list[dict[str, Any]] | None = None) -> SuiteSpec:
    return SuiteSpec("s", "wf", None, None, tuple(Case.model_validate(c) for c in cases),
                     tuple(Metric.model_validate(m) for m in metrics or []), "1")
