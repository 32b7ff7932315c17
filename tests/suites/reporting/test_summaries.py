from __future__ import annotations

from tests.suites.helpers import case, expectation, suite_spec
from tracegrade.suites import AttemptRecord, CheckResult
from tracegrade.suites.checking._records import Invocation
from tracegrade.suites.reporting._summaries import latency_summary, summarise_suite, usage_summary


def test_latency_worked_example() -> None:
    summary = latency_summary([float(v) for v in range(1, 21)] + [None]).model_dump()
    assert summary == {"count": 20, "unavailable": 1, "minimum": 1.0, "median": 10.5, "p95": 19.0, "maximum": 20.0}


def test_latency_without_values_is_null_not_zero() -> None:
    assert latency_summary([None]).model_dump() == {"count": 0, "unavailable": 1, "minimum": None, "median": None,
                                                    "p95": None, "maximum": None}


def test_usage_total_is_null_when_any_value_is_unknown() -> None:
    summary = usage_summary([{"input_tokens": 10, "output_tokens": 2}, {"input_tokens": None, "output_tokens": 3},
                             None])
    assert summary["input_tokens"].model_dump() == {"observed": 1, "unknown": 2, "known_total": 10, "total": None}
    both = usage_summary([{"output_tokens": 2}, {"output_tokens": 3}])
    assert both["output_tokens"].model_dump() == {"observed": 2, "unknown": 0, "known_total": 5, "total": 5}


def attempt(case_id: str, status: str, outcomes: list[str], invocations: tuple[Invocation, ...] = ()) -> AttemptRecord:
    checks = tuple(CheckResult(f"c{i}", o) for i, o in enumerate(outcomes))  # type: ignore[arg-type]
    return AttemptRecord(case_id, 1, status, all(o == "passed" for o in outcomes), checks,  # type: ignore[arg-type]
                         "i", "e", error_code="boom" if status == "error" else None, invocations=invocations)


def test_denominators_keep_every_declared_check() -> None:
    spec = suite_spec([case("a", expectation("x", "/x", 1)), case("b", expectation("x", "/x", 1))])
    attempts = [attempt("a", "completed", ["passed", "failed", "missing"]),
                attempt("b", "needs_review", ["passed", "skipped", "passed"]),
                attempt("c", "error", ["error", "error", "error"])]
    summary = summarise_suite(spec, attempts)
    assert summary.checks.model_dump() == {"total": 9, "passed": 3, "failed": 1, "missing": 1, "skipped": 1,
                                           "errors": 3}
    assert (summary.check_pass_rate, summary.check_coverage) == (3 / 9, 4 / 9)
    assert (summary.case_pass_rate, summary.failure_rate, summary.review_rate) == (0.0, 1 / 3, 1 / 3)
    assert (summary.source_case_count, summary.attempt_count, summary.failures) == (3, 3, {"boom": 1})
    assert summary.statuses == {"completed": 1, "error": 1, "needs_review": 1}


def test_steps_are_keyed_by_flow_and_name_and_decisions_report_fallback_rate() -> None:
    records = (Invocation("a", None, "/flows/a", "completed"), Invocation("a", "s", "/flows/a/steps/s", "completed",
                                                                          "model"),
               Invocation("b", "s", "/flows/b/steps/s", "needs_review", "fallback"),
               Invocation("b", "t", "/flows/b/steps/t", "skipped"))
    summary = summarise_suite(suite_spec([case("a", expectation("x", "/x", 1))]),
                              [attempt("a", "completed", ["passed"], records)])
    assert [(s.flow, s.step, s.observed_invocations) for s in summary.steps] == [
        ("a", "s", 1), ("b", "s", 1), ("b", "t", 1)]
    assert summary.steps[2].skipped_invocations == 1
    assert [f.model_dump() for f in summary.flows] == [{"flow": "a", "observed_invocations": 1,
                                                        "skipped_invocations": 0, "failed_invocations": 0,
                                                        "review_invocations": 0}]
    assert [(d.flow, d.fallback_rate) for d in summary.decisions] == [("a", 0.0), ("b", 1.0)]


def test_failure_rate_counts_failed_cancelled_and_error_attempts_not_only_errors() -> None:
    spec = suite_spec([case(c, expectation("x", "/x", 1)) for c in "abcde"])
    attempts = [attempt("a", "failed", ["missing"]), attempt("b", "cancelled", ["missing"]),
                attempt("c", "error", ["error"]), attempt("d", "completed", ["passed"]),
                attempt("e", "needs_review", ["passed"])]
    assert summarise_suite(spec, attempts).failure_rate == 3 / 5
