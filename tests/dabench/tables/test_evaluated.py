from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tracegrade._io import ColumnBuffer
from tracegrade.dabench.tables._evaluated import read_columns, read_table
from tracegrade.errors import InputError


def written(tmp_path: Path) -> Path:
    buffer = ColumnBuffer((("task_id", "str"), ("tokens", "int"), ("score", "float")))
    buffer.extend([("task_1", 10, 0.5), ("task_2", None, None), ("task_1", 5, 1.0)])
    path = tmp_path / "t.parquet"
    path.write_bytes(buffer.parquet_bytes())
    return path


def test_read_table_returns_what_pyarrow_to_pylist_returns(tmp_path: Path) -> None:
    path = written(tmp_path)
    assert read_table(path) == pq.read_table(path).to_pylist()
    assert read_table(path, ["tokens"]) == [{"tokens": 10}, {"tokens": None}, {"tokens": 5}]


def test_read_columns_gives_the_cells_by_column(tmp_path: Path) -> None:
    assert read_columns(written(tmp_path), ("task_id", "score")) == {
        "task_id": ["task_1", "task_2", "task_1"],
        "score": [0.5, None, 1.0],
    }


def test_unknown_column_missing_or_damaged_file_is_an_input_error(tmp_path: Path) -> None:
    path = written(tmp_path)
    with pytest.raises(InputError, match="no column nope") as unknown:
        read_table(path, ["task_id", "nope"])
    assert unknown.value.code == "invalid_table"
    with pytest.raises(InputError) as missing:
        read_columns(tmp_path / "absent.parquet")
    assert missing.value.code == "not_evaluated"
    damaged = tmp_path / "damaged.parquet"
    damaged.write_bytes(b"not parquet")
    with pytest.raises(InputError) as bad:
        read_table(damaged)
    assert bad.value.code == "invalid_table"
