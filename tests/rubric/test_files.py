from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracegrade.errors import ConfigError, InputError
from tracegrade.rubric import as_path, read_capped_text


def test_a_path_parameter_accepts_text_and_paths_and_expands_the_home() -> None:
    assert as_path("~/rubric.yaml", "p") == Path.home() / "rubric.yaml"
    assert as_path(Path("/x/r.yaml"), "p") == Path("/x/r.yaml")


@pytest.mark.parametrize("value", ["", "   ", 3, None])
def test_a_path_parameter_without_a_path_is_refused_by_name(value: object) -> None:
    with pytest.raises(ConfigError, match="custom_rubric_path: must be a non-empty file path"):
        as_path(value, "custom_rubric_path")


def test_a_small_file_comes_back_as_text_and_bytes_without_its_bom(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_bytes(b"\xef\xbb\xbfname: q\n")
    assert read_capped_text(path, param="p", max_bytes=64) == ("name: q\n", b"\xef\xbb\xbfname: q\n")


def test_a_file_at_the_cap_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_bytes(b"x" * 10)
    assert read_capped_text(path, param="p", max_bytes=10)[0] == "x" * 10
    with pytest.raises(ConfigError, match="larger than the 9-byte limit") as caught:
        read_capped_text(path, param="p", max_bytes=9)
    assert caught.value.code == "limit_exceeded"


def test_a_missing_file_or_a_folder_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="p: file not found"):
        read_capped_text(tmp_path / "none.yaml", param="p", max_bytes=10)
    with pytest.raises(ConfigError, match="is not a regular file"):
        read_capped_text(tmp_path, param="p", max_bytes=10)


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # so that a regression reads these bytes instead of blocking
    try:
        os.write(writer, b"x" * 11)
        with pytest.raises(ConfigError, match="is not a regular file"):
            read_capped_text(fifo, param="p", max_bytes=10)
    finally:
        os.close(writer)


def test_a_file_that_is_not_utf8_is_an_input_error_naming_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_bytes(b"name: \xff\n")
    with pytest.raises(InputError, match=r"p: .*r\.yaml: byte 6: not valid UTF-8"):
        read_capped_text(path, param="p", max_bytes=64)
