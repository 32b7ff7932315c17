from __future__ import annotations

import csv
import io
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from tracegrade._io import ColumnBuffer

COLUMNS = (("name", "str"), ("n", "int"), ("x", "float"), ("ok", "bool"))


def filled() -> ColumnBuffer:
    buffer = ColumnBuffer(COLUMNS)
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


TRICKY = ["plain", "", None, "a,b", 'say "hi"', "line\nbreak", "cr\ronly", "crlf\r\n", " padded ", "é…", "𝄞,x"]


def python_csv(columns: tuple[tuple[str, str], ...], rows: list[tuple[object, ...]]) -> bytes:
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([name for name, _ in columns])
    for row in rows:
        cells = zip(row, columns, strict=True)
        writer.writerow([int(v) if kind == "bool" and v is not None else v for v, (_, kind) in cells])
    return text.getvalue().encode()


def test_csv_equals_what_pythons_csv_writer_writes_for_tricky_cells() -> None:
    columns = (("s", "str"), ("n", "int"), ("x", "float"), ("ok", "bool"))
    numbers = [0, -7, 2**62, None]
    floats = [0.1 + 0.2, 1e16, 1e-05, float("inf"), float("nan"), 3, True, -0.0, None]
    rows = [(s, numbers[i % 4], floats[i % 9], (None, True, False)[i % 3]) for i, s in enumerate(TRICKY * 3)]
    buffer = ColumnBuffer(columns)
    buffer.extend(rows)
    assert buffer.csv_bytes() == python_csv(columns, rows)


def test_csv_of_many_rows_with_and_without_quoted_characters_equals_pythons() -> None:
    """More rows than one piece of the writer holds: the pieces join into Python's CSV."""
    columns = (("clean", "str"), ("mixed", "str"), ("n", "int"))
    mixed = ["a", "b", None, "c", "d,e", "f", 'g"', "", "h", "i", "j", "k", "l\r", "m\n", "n", "o"]
    rows = [(f"row {i}", text, i) for i, text in enumerate(mixed * 700)]
    buffer = ColumnBuffer(columns)
    buffer.extend(rows)
    assert buffer.csv_bytes() == python_csv(columns, rows)


def test_parquet_equals_pyarrow_array_conversion() -> None:
    columns = (("s", "str"), ("n", "int"), ("x", "float"))
    rows = [(s, i, 1.5 if i % 2 else i) for i, s in enumerate(TRICKY)]
    buffer = ColumnBuffer(columns)
    buffer.extend(rows)
    table = pq.read_table(io.BytesIO(buffer.parquet_bytes()))
    assert table.column("s").to_pylist() == TRICKY
    assert table.column("x").to_pylist() == [1.5 if i % 2 else float(i) for i in range(len(TRICKY))]


def test_encoding_does_not_import_pandas() -> None:
    code = (
        "import sys; from tracegrade._io import ColumnBuffer; "
        "b = ColumnBuffer((('s', 'str'), ('x', 'float'))); b.extend([('a,b', 1.5), (None, None)]); "
        "b.csv_bytes(); b.parquet_bytes(); print('pandas' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"  # pyarrow.array() would import pandas (about 0.25 s)


def test_extend_columns_equals_extend_and_checks_lengths() -> None:
    rows = [("a,b", 1, 0.5, True), (None, None, None, None), ('say "hi"', 3, 2.0, False)]
    by_rows, by_columns = ColumnBuffer(COLUMNS), ColumnBuffer(COLUMNS)
    by_rows.extend(rows)
    by_columns.extend_columns([list(column) for column in zip(*rows, strict=True)])
    by_columns.extend_columns([(), (), (), ()])  # an empty slice adds nothing
    assert len(by_columns) == 3
    assert by_columns.csv_bytes() == by_rows.csv_bytes()
    with pytest.raises(ValueError, match="4 values"):
        by_columns.extend_columns([["x"]])
    with pytest.raises(ValueError, match="same number"):
        by_columns.extend_columns([["x"], [1, 2], [0.5], [True]])


def test_csv_across_batches_with_empty_and_partly_quoted_columns() -> None:
    columns = (("s", "str"), ("empty", "float"), ("none", "str"), ("n", "int"))
    rows = [(TRICKY[i % len(TRICKY)], None, None, i if i % 3 else None) for i in range(5000)]  # > one 4096 batch
    buffer = ColumnBuffer(columns)
    buffer.extend(rows)
    assert buffer.csv_bytes() == python_csv(columns, rows)


FORMULAS = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://x","y")', "@SUM(1)", "+1+2", "\t=1", "-2", None, "fine"]


@pytest.mark.parametrize("columns", [(("s", "str"), ("n", "int")), (("s", "str"),)])  # columnar and Python paths
def test_csv_neutralises_formulas_and_parquet_keeps_the_exact_text(columns: tuple[tuple[str, str], ...]) -> None:
    buffer = ColumnBuffer(columns)
    buffer.extend([(s, i)[: len(columns)] for i, s in enumerate(FORMULAS)])
    cells = [row[0] for row in csv.reader(io.StringIO(buffer.csv_bytes().decode(), newline=""))][1:]
    assert cells == [
        "'=cmd|' /C calc'!A0", "'=HYPERLINK(\"http://x\",\"y\")", "'@SUM(1)", "'+1+2", "'\t=1", "-2", "", "fine"
    ]
    assert pq.read_table(io.BytesIO(buffer.parquet_bytes())).column("s").to_pylist() == FORMULAS
