from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracegrade.atif.reading._document import DocumentProblem, _read_to_limit, read_bounded


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


def _pipe_with(data: bytes) -> int:
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    return read_end


def test_growth_after_fstat_is_read_up_to_one_byte_past_the_limit() -> None:
    fd = _pipe_with(b"a" * 5000)  # fstat said 10 bytes, the file holds more
    try:
        assert len(_read_to_limit(fd, 10, 1000)) == 1001
    finally:
        os.close(fd)


def test_growth_within_the_limit_is_read_whole() -> None:
    fd = _pipe_with(b"a" * 5000)
    try:
        assert _read_to_limit(fd, 10, 1 << 20) == b"a" * 5000
    finally:
        os.close(fd)


def test_a_json_object_that_is_not_a_trajectory_is_named_so() -> None:
    from tracegrade.atif import LoadOptions
    from tracegrade.atif.reading._document import validate_document

    other = validate_document({"resourceSpans": []}, LoadOptions())
    assert isinstance(other, tuple) and other[0] == "schema_violation"
    assert other[1].startswith("not an ATIF trajectory (no schema_version, agent, steps): /")
    broken = validate_document({"schema_version": "ATIF-v1.6"}, LoadOptions())
    assert isinstance(broken, tuple) and broken[1].startswith("/")  # an ATIF document with faults: the faults
