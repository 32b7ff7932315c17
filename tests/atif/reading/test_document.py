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
