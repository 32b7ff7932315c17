"""The product's table writers: Arrow columns as pyarrow builds them (without pandas), CSV as csv.writer writes it."""

from __future__ import annotations

import csv
import io
import math
import subprocess
import sys
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tracegrade._io import arrow_column, csv_chunks, parquet_bytes
from tracegrade.runs import JobStatus

MAP = pa.map_(pa.string(), pa.float64())


def _parquet(array: pa.Array) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_arrays([array], names=["c"]), buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("kind", "values"),
    [
        (pa.string(), ["a", None, "é✓ ünïcode", "", None]),
        (pa.string(), [None, None]),
        (pa.string(), []),
        (pa.int32(), [1, None, -5, 2**31 - 1, -(2**31)]),
        (pa.int32(), [None]),
        (pa.int64(), [1, None, 2**62, -(2**63)]),
        (pa.float64(), [1, 2.5, None, True, 2**53]),
        (pa.float64(), [0.5, None, 1.0, 0.0]),
        (pa.bool_(), [True, False, None, True, True, False, False, False, True]),
        (pa.bool_(), [False] * 17),
        (MAP, [[("a", 0.5), ("b", 1.0)], None, [], [("c", 0.25)], None]),
        (MAP, [None, None]),
        (MAP, [[("x", 1.0)]]),
    ],
)
def test_column_is_the_array_pyarrow_builds(kind: pa.DataType, values: list[Any]) -> None:
    built = arrow_column(values, kind)
    built.validate(full=True)
    expected = pa.array(values, type=kind)
    assert built.equals(expected) and built.null_count == expected.null_count
    assert _parquet(built) == _parquet(expected)


def test_nan_scores_give_the_same_file() -> None:
    values = [math.nan, None, 0.25]
    assert _parquet(arrow_column(values, pa.float64())) == _parquet(pa.array(values, type=pa.float64()))


@pytest.mark.parametrize(
    ("kind", "values"),
    [(pa.int32(), [1, 2**40]), (pa.int32(), [1, "2"]), (pa.string(), ["a", 3]), (pa.float64(), [1.5, "x"])],
)
def test_values_of_another_kind_fail_as_pyarrow_fails(kind: pa.DataType, values: list[Any]) -> None:
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError)) as built:
        arrow_column(values, kind)
    with pytest.raises(type(built.value)):
        pa.array(values, type=kind)


def test_other_python_types_take_pyarrows_own_path() -> None:
    assert arrow_column([1, None, 3], pa.float64()).to_pylist() == [1.0, None, 3.0]  # ints in a double column
    assert arrow_column([JobStatus.COMPLETED, None], pa.string()).to_pylist() == ["completed", None]  # a str subclass


def test_csv_in_pieces_is_what_csv_writer_writes() -> None:
    rows = [(f"r{i}", i, i / 3, None, 'a,"b"\nc' if i % 7 == 0 else "") for i in range(10_000)]
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["a", "b", "c", "d", "e"])
    writer.writerows(rows)
    pieces = list(csv_chunks(["a", "b", "c", "d", "e"], rows))
    assert len(pieces) > 1 and b"".join(pieces) == text.getvalue().encode()
    assert b"".join(csv_chunks(["only"], [])) == b"only\n"


def test_a_parquet_file_holds_the_columns_as_given() -> None:
    data = parquet_bytes(["s", "n"], [arrow_column(["x", None], pa.string()), arrow_column([1, 2], pa.int64())])
    assert pq.read_table(io.BytesIO(data)).to_pylist() == [{"s": "x", "n": 1}, {"s": None, "n": 2}]


def test_building_columns_does_not_import_pandas() -> None:
    code = (
        "import sys, pyarrow as pa\n"
        "from tracegrade._io import arrow_column, parquet_bytes\n"
        "parquet_bytes(['s'], [arrow_column(['a', None], pa.string())])\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
