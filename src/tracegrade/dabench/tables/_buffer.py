"""A compact column buffer and its CSV / Parquet encodings, written by the product's table writers.

The CSV is what ``csv.writer`` writes for the rows (minimal quoting, LF line ends, None an empty cell, bool
as 0/1); a text cell a spreadsheet could run as a formula gets a leading single quote in the CSV only
(:func:`tracegrade.runs.spreadsheet_safe`); the Parquet file keeps the exact text.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tracegrade._io import arrow_column, csv_chunks, parquet_bytes
from tracegrade.dabench.reading._records import Value
from tracegrade.runs import spreadsheet_safe_row

__all__ = ["TableBuffer"]

class TableBuffer:
    """Rows kept column by column until the table is written.

    Column kinds: ``str``, ``int``, ``float`` and ``bool`` (written as 0/1); None is an empty CSV cell and a
    Parquet null.
    """

    def __init__(self, columns: tuple[tuple[str, str], ...]) -> None:
        self.columns = columns
        self._cells: list[list[Value]] = [[] for _ in columns]
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, row: tuple[Value, ...]) -> None:
        """Append one row (values in column order)."""
        if len(row) != len(self.columns):
            raise ValueError(f"every row needs {len(self.columns)} values")
        for cells, value in zip(self._cells, row, strict=True):
            cells.append(value)  # no row tuple is kept: held rows would make the cyclic GC walk every cell
        self._count += 1

    def extend(self, rows: list[tuple[Value, ...]]) -> None:
        """Append rows (values in column order)."""
        if not rows:
            return
        if any(len(row) != len(self.columns) for row in rows):
            raise ValueError(f"every row needs {len(self.columns)} values")
        for cells, column in zip(self._cells, zip(*rows, strict=True), strict=True):
            cells.extend(column)
        self._count += len(rows)

    def extend_columns(self, columns: Sequence[Sequence[Value]]) -> None:
        """Append rows given column by column (one sequence of cells per column, all of one length)."""
        if len(columns) != len(self.columns):
            raise ValueError(f"every row needs {len(self.columns)} values")
        count = len(columns[0])
        if any(len(column) != count for column in columns):
            raise ValueError("every column needs the same number of cells")
        if not count:
            return
        for cells, column in zip(self._cells, columns, strict=True):
            cells.extend(column)
        self._count += count

    def select(self, names: tuple[str, ...]) -> TableBuffer:
        """A buffer with only ``names`` (sharing the cells)."""
        index = {name: i for i, (name, _) in enumerate(self.columns)}
        picked = TableBuffer(tuple(self.columns[index[n]] for n in names))
        picked._cells = [self._cells[index[n]] for n in names]
        picked._count = self._count
        return picked

    def column(self, name: str) -> list[Value]:
        """The cells of one column."""
        return self._cells[[n for n, _ in self.columns].index(name)]

    def _typed(self, index: int) -> list[Value]:
        cells = self._cells[index]
        if self.columns[index][1] == "bool":
            return [None if v is None else int(bool(v)) for v in cells]
        return cells

    def csv_bytes(self) -> bytes:
        """UTF-8 CSV with a header row, minimal quoting and LF line ends."""
        return b"".join(self.csv_chunks())

    def csv_chunks(self) -> Iterator[bytes]:
        """The bytes of :meth:`csv_bytes` a slice of rows at a time."""
        rows = zip(*(self._typed(i) for i in range(len(self.columns))), strict=True)
        return csv_chunks([name for name, _ in self.columns], map(spreadsheet_safe_row, rows))

    def parquet_bytes(self) -> bytes:
        """A Parquet file with typed columns (string, int64, float64; bool as int64 0/1)."""
        import pyarrow as pa

        kinds = {"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.int64()}
        arrays = [arrow_column(self._typed(i), kinds[kind]) for i, (_, kind) in enumerate(self.columns)]
        return parquet_bytes([name for name, _ in self.columns], arrays)
