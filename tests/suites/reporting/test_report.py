from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.suites.helpers import case, expectation, load, manifest, suite
from tracegrade.errors import ConfigError, InputError
from tracegrade.suites import CallableTarget, SuiteRunParameters, read_report, run_dataset, write_private
from tracegrade.suites.checking._records import AttemptRequest
from tracegrade.suites.reporting._html import render_report_html
from tracegrade.suites.reporting._report import dumps_report, exit_code, report_summary
from tracegrade.suites.reporting._terminal import print_report


def test_private_writes_are_0600_and_never_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    write_private(path, b"{}")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with pytest.raises(ConfigError, match="never overwritten"):
        write_private(path, b"[]")
    assert path.read_bytes() == b"{}"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_reading_something_else_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"format": "other"}')
    with pytest.raises(InputError, match="not a tracegrade suite report"):
        read_report(tmp_path / "x.json")


async def report(tmp_path: Path, answers: dict[str, Any]) -> dict[str, Any]:
    async def sut(request: AttemptRequest) -> Any:
        answer = answers[request.case_id]
        if isinstance(answer, Exception):
            raise answer
        return answer

    data = load(tmp_path, manifest(suite("s", [case(k, expectation("v", "/v", 1), payload={"secret": "PII-123"})
                                               for k in answers])))
    return await run_dataset(data, CallableTarget(sut), SuiteRunParameters())


async def test_exit_codes_follow_the_worst_attempt(tmp_path: Path) -> None:
    assert exit_code(await report(tmp_path, {"a": {"v": 1}})) == 0
    assert exit_code(await report(tmp_path, {"a": {"v": 1}, "b": {"v": 2}})) == 1
    assert exit_code(await report(tmp_path, {"a": {"v": 2}, "b": RuntimeError("x")})) == 4
    assert exit_code(await report(tmp_path, {"a": {"v": 1, "execution": {"status": "needs_review"}}})) == 0


async def test_the_summary_is_content_free(tmp_path: Path) -> None:
    full = await report(tmp_path, {"case-with-private-id": {"v": 1, "note": "PII-123"}})
    summary = dumps_report(report_summary(full, tmp_path / "r.json"))
    assert b"PII-123" not in summary and b"case-with-private-id" not in summary
    assert b"PII-123" in dumps_report(full)  # the detailed report keeps details: it is private


async def test_terminal_report_fits_80_columns_and_html_is_self_contained(tmp_path: Path) -> None:
    full = await report(tmp_path, {"a": {"v": 1}, "b": {"v": 2}, "c": RuntimeError("x")})
    console = Console(width=80, record=True, force_terminal=False)
    print_report(full, console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "target_exception 1" in text
    page = render_report_html(full)
    assert page.startswith("<!DOCTYPE html>") and "http://" not in page and "https://" not in page
    assert "target_exception" in page and "Confusion" not in page



async def test_metrics_render_in_both_reports(tmp_path: Path) -> None:
    cases = [case(f"c{i}", expectation("cat", "/cat", label), expectation("who", "/who", {"name": "A", "tel": None}),
                  payload={"i": i}) for i, label in enumerate(["x", "y", None])]
    metrics = [{"name": "cat", "path": "/cat", "kind": "classification", "labels": ["x", "y", None]},
               {"name": "who", "path": "/who", "kind": "fields", "labels": ["name", "tel"]}]
    data = load(tmp_path, manifest(suite("s", cases, metrics=metrics)))

    async def sut(request: AttemptRequest) -> Any:
        return {"cat": "x", "who": {"name": "A", "tel": "5"}}

    full = await run_dataset(data, CallableTarget(sut), SuiteRunParameters())
    page = render_report_html(full)
    assert "Confusion matrix" in page and "hallucination rate" in page and "<th>null</th>" in page
    console = Console(width=80, record=True, force_terminal=False)
    print_report(full, console)
    assert "halluc." in console.export_text()
