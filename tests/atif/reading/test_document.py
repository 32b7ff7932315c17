from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade.atif.reading._document import DocumentProblem, read_bounded


@pytest.mark.parametrize("size", [0, 1, 65_535, 65_536, 300_001])
def test_read_bounded_returns_the_whole_file(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path = tmp_path / "t.json"
    path.write_bytes(data)
    assert read_bounded(path, 10 * 1024 * 1024) == data


def test_read_bounded_refuses_a_file_over_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b"x" * 101)
    problem = read_bounded(path, 100)
    assert isinstance(problem, DocumentProblem) and problem.code == "too_large"


def test_a_json_object_that_is_not_a_trajectory_is_named_so() -> None:
    from tracegrade.atif import LoadOptions
    from tracegrade.atif.reading._document import validate_document

    other = validate_document({"resourceSpans": []}, LoadOptions())
    assert isinstance(other, tuple) and other[0] == "schema_violation"
    assert other[1].startswith("not an ATIF trajectory (no schema_version, agent, steps): /")
    broken = validate_document({"schema_version": "ATIF-v1.6"}, LoadOptions())
    assert isinstance(broken, tuple) and broken[1].startswith("/")  # an ATIF document with faults: the faults
