"""The one capped reader of input files: regular files only, never more than the limit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracegrade.errors import InputError
from tracegrade.runs import UnreadableFile, read_capped
from tracegrade.runs._read import _read_to_limit

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")


@pytest.mark.parametrize("size", [0, 1, 65_535, 65_536, 300_001])
def test_a_regular_file_is_read_whole(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    (tmp_path / "f").write_bytes(data)
    assert read_capped(tmp_path / "f", 1 << 20) == data


def test_a_file_over_the_limit_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x" * 101)
    with pytest.raises(UnreadableFile) as caught:
        read_capped(tmp_path / "f", 100, limit_name="max_file_bytes")
    assert caught.value.code == "too_large" and caught.value.reason == "file is 101 bytes, over max_file_bytes=100"
    assert str(caught.value) == f"{tmp_path / 'f'}: file is 101 bytes, over max_file_bytes=100"
    assert isinstance(caught.value, InputError) and caught.value.exit_code == 2


@needs_fifo
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(UnreadableFile, match="not a regular file") as caught:
        read_capped(tmp_path / "pipe", 100)  # before: a blocking open, waiting for ever
    assert caught.value.code == "not_a_file"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("linked", [False, True])
def test_a_device_or_a_link_to_one_is_refused(tmp_path: Path, linked: bool) -> None:
    path = Path("/dev/zero")
    if linked:
        (tmp_path / "zero.json").symlink_to(path)
        path = tmp_path / "zero.json"
    with pytest.raises(UnreadableFile, match="not a regular file"):
        read_capped(path, 100)


def test_a_folder_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFile) as caught:
        read_capped(tmp_path, 100)
    assert caught.value.code == "not_a_file"
    with pytest.raises(UnreadableFile, match=r"cannot read: no such file") as caught:
        read_capped(tmp_path / "missing", 100)
    assert caught.value.code == "unreadable"


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


def test_read_lines_caps_each_line_not_the_file(tmp_path: Path) -> None:
    from tracegrade.runs import read_lines

    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"12345\n" * 10 + b"123456\n")
    lines = read_lines(path, 5)
    assert [next(lines) for _ in range(10)] == [(n, b"12345") for n in range(1, 11)]
    with pytest.raises(UnreadableFile, match=r"line 11 is over the limit of 5 bytes") as caught:
        next(lines)
    assert caught.value.code == "too_large"
    with pytest.raises(UnreadableFile, match="cannot read"):
        next(read_lines(tmp_path / "missing.jsonl", 5))
