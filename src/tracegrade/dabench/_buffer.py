"""A compact column buffer and its CSV / Parquet encodings (no pandas: one copy of the text at a time)."""

from __future__ import annotations

import csv
import io
from typing import Any

from tracegrade.dabench._records import Value

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
        self.extend([row])

    def extend(self, rows: list[tuple[Value, ...]]) -> None:
        """Append rows (values in column order)."""
        if not rows:
            return
        if any(len(row) != len(self.columns) for row in rows):
            raise ValueError(f"every row needs {len(self.columns)} values")
        for cells, column in zip(self._cells, zip(*rows, strict=True), strict=True):
            cells.extend(column)
        self._count += len(rows)

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
        buffer = io.BytesIO()
        text = io.TextIOWrapper(buffer, encoding="utf-8", newline="")
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow([name for name, _ in self.columns])
        writer.writerows(zip(*(self._typed(i) for i in range(len(self.columns))), strict=True))
        text.flush()
        data = buffer.getvalue()
        text.detach()
        return data

    def parquet_bytes(self) -> bytes:
        """A Parquet file with typed columns (string, int64, float64; bool as int64 0/1)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        kinds: dict[str, Any] = {"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.int64()}
        arrays = [pa.array(self._typed(i), type=kinds[kind]) for i, (_, kind) in enumerate(self.columns)]
        table = pa.Table.from_arrays(arrays, names=[name for name, _ in self.columns])
        sink = io.BytesIO()
        pq.write_table(table, sink)
        return sink.getvalue()
