from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tracegrade.suites import (
    CallableTarget,
    Case,
    Dataset,
    ScorerRegistry,
    SuiteReport,
    SuiteRunParameters,
    dumps_report,
    load_dataset,
    run_dataset,
    write_private,
)
from tracegrade.suites.checking._judge import JudgeAsker
from tracegrade.suites.checking._records import AttemptRequest
from tracegrade.suites.checking._scoring import CaseScorer, SuiteScorer
from tracegrade.suites.reading._columns import CaseColumns, case_columns
from tracegrade.suites.reading._dataset import SuiteSpec
from tracegrade.suites.reading._models import Metric


def case_json(columns: CaseColumns, number: int) -> dict[str, Any]:
    """Case ``number`` of ``columns`` as JSON (what dumping its model gives)."""
    return {"id": columns.ids[number], "input": columns.inputs[number],
            "expectations": columns.expectations_json(number)}


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


def case_scorer(one: Case, registry: ScorerRegistry | None = None, judge: JudgeAsker | None = None,
                metrics: tuple[Metric, ...] = ()) -> CaseScorer:
    """The scorer of one case, as a suite of it alone builds it."""
    return SuiteScorer(spec_of((one,), metrics), registry or ScorerRegistry(), judge).cases[one.id]


def spec_of(cases: Sequence[Case], metrics: tuple[Metric, ...] = (), *, name: str = "s", flow: str | None = None,
            revision: str = "1") -> SuiteSpec:
    """A suite of these case models, its columns read from their dump (as a dataset's are read)."""
    columns = case_columns([c.model_dump(mode="json") for c in cases])
    assert columns is not None
    return SuiteSpec(name, "wf", flow, None, cases, metrics, revision, columns)


def suite_spec(cases: list[dict[str, Any]], metrics: list[dict[str, Any]] | None = None) -> SuiteSpec:
    return spec_of(tuple(Case.model_validate(c) for c in cases), tuple(Metric.model_validate(m) for m in metrics or []))


async def answered(tmp_path: Path, answers: dict[str, Any]) -> SuiteReport:
    """A run of one check ``/v == 1`` per case, each case answered as given (an exception is raised)."""
    async def sut(request: AttemptRequest) -> Any:
        answer = answers[request.case_id]
        if isinstance(answer, Exception):
            raise answer
        return answer

    data = load(tmp_path, manifest(suite("s", [case(k, expectation("v", "/v", 1), payload={"secret": "PII-123"})
                                               for k in answers])))
    return await run_dataset(data, CallableTarget(sut), SuiteRunParameters())


METRICS = [{"name": "cat", "path": "/cat", "kind": "classification", "labels": ["x", "y", None]},
           {"name": "tags", "path": "/tags", "kind": "multilabel", "labels": ["a", "b"]},
           {"name": "who", "path": "/who", "kind": "fields", "labels": ["name", "tel"]}]


async def with_metrics(tmp_path: Path) -> SuiteReport:
    """A run with a metric of every kind, a flow with a decision step, and one skipped step."""
    cases = [case(f"c{i}", expectation("cat", "/cat", label), expectation("tags", "/tags", ["a"], comparison="set"),
                  expectation("who", "/who", {"name": "A", "tel": None}), payload={"i": i})
             for i, label in enumerate(["x", "y", None])]
    data = load(tmp_path, manifest(suite("s", cases, metrics=METRICS)))

    async def sut(request: AttemptRequest) -> Any:
        steps = {"pick": {"status": "completed", "selection": {"origin": "model" if request.payload["i"] else
                                                                "fallback"}},
                 "draft": {"status": "skipped"}}
        return {"cat": "x", "tags": ["a", "b"], "who": {"name": "A", "tel": "5"},
                "flows": {"triage": {"status": "completed", "steps": steps}}}

    return await run_dataset(data, CallableTarget(sut), SuiteRunParameters())


def two_checks(values: list[int]) -> dict[str, Any]:
    """A manifest of cases ``c<i>`` with the checks ``/v == values[i]`` and ``/w == 0``."""
    return manifest(suite("s", [case(f"c{i}", expectation("v", "/v", v), expectation("w", "/w", 0),
                                     payload={"i": i}) for i, v in enumerate(values)]))


async def saved_run(tmp_path: Path, data_path: Path, answers: dict[int, int | None], name: str,
                    params: SuiteRunParameters | None = None) -> Path:
    """A report written to ``name``: case ``c<i>`` answers ``/v = answers[i]`` (None or absent: the target raises)."""
    async def sut(request: AttemptRequest) -> dict[str, Any]:
        i = request.payload["i"]
        if answers.get(i) is None:
            raise RuntimeError("down")
        return {"v": answers[i], "w": 0, "execution": {"status": "completed"}}

    report = await run_dataset(load_dataset(data_path), CallableTarget(sut), params or SuiteRunParameters(repeat=2))
    path = tmp_path / name
    write_private(path, dumps_report(report))
    return path
