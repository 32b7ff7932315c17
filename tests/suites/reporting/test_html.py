from __future__ import annotations

import dataclasses
import html
import re
from pathlib import Path

from tests.conftest import browse
from tests.render.html_checks import PLANTED, check_report
from tests.suites.helpers import answered, with_metrics
from tracegrade.suites import render_report_html


async def test_the_page_is_self_contained_and_shows_failed_attempts(tmp_path: Path) -> None:
    page = render_report_html(await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 2}, "c": RuntimeError("x")}))
    assert page.startswith("<!DOCTYPE html>") and "http://" not in page and "https://" not in page
    assert "Suite report: gold (revision 1)" in page and "run · 1 suites" in page
    assert "target_exception" in page and "v: failed (mismatch)" in page
    assert "Confusion" not in page and "Decisions" not in page
    check_report(page)


async def test_metrics_flows_and_decisions_are_drawn(tmp_path: Path) -> None:
    page = render_report_html(await with_metrics(tmp_path))
    assert "Confusion matrix" in page and "<th>null</th>" in page
    assert "multilabel metric tags" in page and "(micro)" in page
    assert "hallucination rate" in page
    assert "<h3>Flows and steps</h3>" in page and "<h3>Decisions</h3>" in page
    check_report(page)


async def test_each_check_shows_its_pointer_comparison_gold_and_observed_value(tmp_path: Path) -> None:
    long = {"v": "x" * 300}
    page = render_report_html(await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 2}, "c": {"w": 1}, "d": long}))
    rows = re.findall(r'<tr data-outcome="(\w+)">(.*?)</tr>', page, re.S)
    cells = [(outcome, [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td>(.*?)</td>", row, re.S)])
             for outcome, row in rows]
    assert cells[0] == ("passed", ["v", "passed", "—", "/v", "exact", "1", "1"])
    assert cells[1] == ("failed", ["v", "failed", "mismatch", "/v", "exact", "1", "2"])
    assert cells[2][1][5:] == ["1", "(absent)"]
    assert '<details class="long"><summary><span class="preview">&#34;xxx' in rows[3][1]  # a long value is collapsed
    assert page.count('<details class="attempt"') == 4
    assert page.count('<details class="attempt" data-suite="suite-0" open>') == 3  # those not passed start open
    assert '<option value="failed">failed (' in page
    check_report(page)


async def test_markup_in_gold_and_observed_values_is_shown_as_text(tmp_path: Path) -> None:
    page = render_report_html(await answered(tmp_path, {"a": {"v": PLANTED}, "b": {"v": 2}}))
    assert html.escape(PLANTED) in page or html.escape(PLANTED, quote=False) in page
    check_report(page)


async def test_without_details_the_page_says_gold_and_observed_are_not_kept(tmp_path: Path) -> None:
    report = await answered(tmp_path, {"a": {"v": 2}})
    stripped = report.model_copy(update={"suites": [s.model_copy(update={"attempts": [
        dataclasses.replace(a, details=None) for a in s.attempts]}) for s in report.suites]})
    page = render_report_html(stripped)
    assert "gold and observed values are not kept" in page


async def test_the_outcome_filter_runs_in_a_browser(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_report_html(await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 2}})))
    assert "2 of 2 checks shown" in browse(page)


async def test_an_unknown_execution_status_is_explained_beside_its_failure_count(tmp_path: Path) -> None:
    report = await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 1, "execution": {"status": "done"}}})
    page = render_report_html(report)
    assert "unknown_execution_status" in page
    assert "/execution/status is none of completed, needs_review, failed, cancelled" in page
