from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest

from tracegrade.dabench._buffer import TableBuffer

COLUMNS = (("name", "str"), ("n", "int"), ("x", "float"), ("ok", "bool"))


def filled() -> TableBuffer:
    buffer = TableBuffer(COLUMNS)
    buffer.extend([("a,b", 1, 0.5, True), (None, None, None, None)])
    buffer.add(('say "hi"', 3, 2.0, False))
    return buffer


def test_csv_quotes_minimally_and_writes_nulls_empty_and_booleans_as_0_1() -> None:
    assert filled().csv_bytes().decode() == 'name,n,x,ok\n"a,b",1,0.5,1\n,,,\n"say ""hi""",3,2.0,0\n'


def test_parquet_columns_are_typed() -> None:
    table = pq.read_table(io.BytesIO(filled().parquet_bytes()))
    assert [str(t) for t in table.schema.types] == ["string", "int64", "double", "int64"]
    assert table.column("ok").to_pylist() == [1, None, 0]


def test_select_shares_cells_and_rows_must_fit_the_columns() -> None:
    buffer = filled()
    assert buffer.select(("n",)).csv_bytes() == b'n\n1\n""\n3\n'  # a lone empty field is quoted
    assert len(buffer) == 3
    with pytest.raises(ValueError, match="4 values"):
        buffer.add(("only one",))
