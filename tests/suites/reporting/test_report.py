from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.suites.helpers import answered, with_metrics
from tracegrade.errors import ConfigError, InputError
from tracegrade.suites import SuiteReport, read_report, write_private
from tracegrade.suites.reporting._report import dumps_report, exit_code, report_parts, report_summary


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


async def test_exit_codes_follow_the_worst_attempt(tmp_path: Path) -> None:
    assert exit_code(await answered(tmp_path, {"a": {"v": 1}})) == 0
    assert exit_code(await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 2}})) == 1
    assert exit_code(await answered(tmp_path, {"a": {"v": 2}, "b": RuntimeError("x")})) == 4
    assert exit_code(await answered(tmp_path, {"a": {"v": 1, "execution": {"status": "needs_review"}}})) == 0


async def test_the_summary_is_content_free(tmp_path: Path) -> None:
    full = await answered(tmp_path, {"case-with-private-id": {"v": 1, "note": "PII-123"}})
    summary = orjson.dumps(report_summary(full, tmp_path / "r.json").model_dump())
    assert b"PII-123" not in summary and b"case-with-private-id" not in summary
    assert list(orjson.loads(summary)["suites"][0]) == ["suite", "attempt_count", "source_case_count", "checks",
                                                        "check_pass_rate", "check_coverage", "case_pass_rate",
                                                        "failure_rate", "review_rate"]
    assert b"PII-123" in dumps_report(full)  # the detailed report keeps details: it is private


def saved(tmp_path: Path, report: SuiteReport, change: Any = None) -> Path:
    data = orjson.loads(dumps_report(report))
    if change is not None:
        change(data)
    path = tmp_path / "saved.json"
    path.write_bytes(orjson.dumps(data))
    return path


async def test_a_saved_report_reads_back_as_the_same_records(tmp_path: Path) -> None:
    full = await answered(tmp_path, {"a": {"v": 1}, "b": RuntimeError("x")})
    again = read_report(saved(tmp_path, full))
    assert again == full
    assert again.suites[0].attempts[1].error_code == "target_exception"


async def test_a_report_written_before_the_concurrency_rename_still_reads(tmp_path: Path) -> None:
    def old_name(data: dict[str, Any]) -> None:
        parameters = data["parameters"]
        data["parameters"] = {("max_concurrency" if k == "concurrency_limit" else k): v for k, v in parameters.items()}

    full = await answered(tmp_path, {"a": {"v": 1}})
    path = saved(tmp_path, full, old_name)
    assert b'"max_concurrency":8' in path.read_bytes()
    assert read_report(path) == full


async def test_an_invalid_report_names_the_place(tmp_path: Path) -> None:
    full = await answered(tmp_path, {"a": {"v": 1}})

    def bad_outcome(data: dict[str, Any]) -> None:
        data["suites"][0]["attempts"][0]["checks"][0]["outcome"] = "great"

    with pytest.raises(InputError, match=r"saved\.json: /suites/0/attempts/0/checks/0/outcome: invalid attempt record"):
        read_report(saved(tmp_path, full, bad_outcome))
    with pytest.raises(InputError, match=r"saved.json: /suites/0/checks/total: Input should be a valid integer"):
        read_report(saved(tmp_path, full, lambda data: data["suites"][0]["checks"].update(total="many")))
    with pytest.raises(InputError, match=r"saved.json: /suites/0/fingerprint: Field required"):
        read_report(saved(tmp_path, full, lambda data: data["suites"][0].pop("fingerprint")))
    with pytest.raises(InputError, match=r"saved.json: /suites/0/latency/extra: Extra inputs are not permitted"):
        read_report(saved(tmp_path, full, lambda data: data["suites"][0]["latency"].update(extra=1)))


async def test_the_report_bytes_are_what_pydantic_writes(tmp_path: Path) -> None:
    """Attempt records go to orjson directly: the bytes must equal the models' own dump, details and all."""
    (tmp_path / "a").mkdir()
    (tmp_path / "m").mkdir()
    reports = [await answered(tmp_path / "a", {"a": {"v": 1}, "b": RuntimeError("x"), "c": {"v": 2.5}}),
               await with_metrics(tmp_path / "m")]
    for report in reports:
        expected = orjson.dumps(report.model_dump(), option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
        assert dumps_report(report) == expected
    assert b'"invocations"' in dumps_report(reports[1]) and b'"metrics"' in dumps_report(reports[1])


async def test_the_report_in_parts_is_the_whole_dump_for_every_slice_size(tmp_path: Path) -> None:
    """Sections with no, one and several attempts, cut into slices of each size, write the models' bytes."""
    (tmp_path / "a").mkdir()
    report = await answered(tmp_path / "a", {"a": {"v": 1}, "b": RuntimeError("x"), "c": {"v": 2.5}})
    empty = report.suites[0].model_copy(update={"suite": "none", "attempts": []})
    one = report.suites[0].model_copy(update={"suite": "one", "attempts": report.suites[0].attempts[:1]})
    report = report.model_copy(update={"suites": [empty, *report.suites, one, empty]})
    expected = orjson.dumps(report.model_dump(), option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    assert b'"attempts": []' in expected
    for size in (1, 2, 3, 1024):
        assert b"".join(report_parts(report, size)) == expected
    no_suites = report.model_copy(update={"suites": []})
    assert b"".join(report_parts(no_suites)) == dumps_report(no_suites) == orjson.dumps(
        no_suites.model_dump(), option=orjson.OPT_INDENT_2)


async def test_a_report_written_in_parts_is_written_whole(tmp_path: Path) -> None:
    report = await answered(tmp_path, {"a": {"v": 1}, "b": {"v": 2}})
    write_private(tmp_path / "r.json", report_parts(report, 1))
    assert (tmp_path / "r.json").read_bytes() == dumps_report(report)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o600


def test_a_failed_write_in_parts_leaves_no_file(tmp_path: Path) -> None:
    def parts() -> Iterator[bytes]:
        yield b"{"
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        write_private(tmp_path / "r.json", parts())
    assert list(tmp_path.iterdir()) == []
