from __future__ import annotations

from pathlib import Path

from tests.suites.helpers import answered, with_metrics
from tracegrade.suites import render_report_html


async def test_the_page_is_self_contained_and_shows_failed_attempts(tmp_path: Path) -> None:
    page = render_report_html(await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 2}, "c": RuntimeError("x")}))
    assert page.startswith("<!DOCTYPE html>") and "http://" not in page and "https://" not in page
    assert "Suite report: gold (revision 1)" in page and "run · 1 suites" in page
    assert "target_exception" in page and "v: failed (mismatch)" in page
    assert "Confusion" not in page and "Decisions" not in page


async def test_metrics_flows_and_decisions_are_drawn(tmp_path: Path) -> None:
    page = render_report_html(await with_metrics(tmp_path))
    assert "Confusion matrix" in page and "<th>null</th>" in page
    assert "multilabel metric tags" in page and "(micro)" in page
    assert "hallucination rate" in page
    assert "<h3>Flows and steps</h3>" in page and "<h3>Decisions</h3>" in page
