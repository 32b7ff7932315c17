from __future__ import annotations

from pathlib import Path

from rich.console import Console

from tests.suites.helpers import answered, with_metrics
from tracegrade.suites import IntervalParameters, compare_reports, print_comparison, print_report


def printed(show: object, width: int = 80) -> str:
    console = Console(width=width, record=True, force_terminal=False)
    show(console)  # type: ignore[operator]
    return console.export_text()


async def test_the_report_fits_80_columns_and_names_failures(tmp_path: Path) -> None:
    full = await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 2}, "c": RuntimeError("x")})
    text = printed(lambda console: print_report(full, console))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "Suites (run)" in text and "target_exception 1" in text
    assert "s: latency over 3 attempts (0 unavailable): minimum" in text
    assert "flows and steps" not in text and "decisions" not in text  # nothing to show: no empty tables


async def test_metrics_flows_and_decisions_are_shown(tmp_path: Path) -> None:
    full = await with_metrics(tmp_path)
    text = printed(lambda console: print_report(full, console), width=120)
    assert "s: classification metric cat: accuracy 33.3%, coverage 100.0% (support 3, excluded 0;" in text
    assert "s: multilabel metric tags:" in text and "(micro)" in text and "(macro)" in text
    assert "halluc." in text and "null" in text
    assert "s: flows and steps" in text and "s: decisions" in text


async def test_a_comparison_shows_changes_and_deltas(tmp_path: Path) -> None:
    base = await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 1}})
    cand = await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 2}})
    result = compare_reports(cand, base, IntervalParameters(resamples=100))
    text = printed(lambda console: print_comparison(result, console))
    assert "s: 2 attempts: improved 0, regressed 1, mixed 0, unchanged 1" in text
    assert "check_pass_rate" in text and "-50.0%" in text


async def test_an_unknown_execution_status_is_named_with_the_accepted_values(tmp_path: Path) -> None:
    full = await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 2, "execution": {"status": "done"}}})
    text = printed(lambda console: print_report(full, console), width=120)
    assert "unknown_execution_status 1" in text
    assert "unknown_execution_status: /execution/status is none of completed, needs_review, failed, cancelled" in text
