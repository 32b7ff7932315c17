"""A compact column buffer and its CSV / Parquet encodings (no pandas: one copy of the text at a time).

Both files are encoded column by column in Arrow from the same typed arrays, built straight from their UTF-8
buffers: ``pyarrow.array`` would import pandas (a quarter of a second) to check for pandas objects. The CSV
text is byte for byte what Python's ``csv.writer`` (minimal quoting, LF line ends) writes for the same rows:
numbers are Python's own ``str`` of the value, None is an empty cell, and a cell is quoted only when it holds
a comma, a quote or a line end. A text cell a spreadsheet could run as a formula gets a leading single quote
in the CSV only (:func:`tracegrade.runs.spreadsheet_safe`); the Parquet file keeps the exact text.
"""

from __future__ import annotations

import csv
import io
import operator
from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import Any

from tracegrade.dabench.reading._records import Value
from tracegrade.runs import FORMULA_START, spreadsheet_safe, spreadsheet_safe_row

__all__ = ["TableBuffer"]

_BATCH_ROWS = 4096
"""Rows joined into CSV lines at a time (bounds the size of the intermediate Arrow strings)."""
_FLOAT_EXACT = 1 << 53
"""Python ints a float64 column holds exactly (``pyarrow.array`` refuses larger ones)."""


def _python_quotes(char: str) -> bool:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([char, ""])
    return buffer.getvalue().startswith('"')


_QUOTES_CR = _python_quotes("\r")
"""Whether this Python's csv writer quotes a lone carriage return (it always quotes ``,``, ``"`` and LF)."""
_QUOTED_CHARS = '[,"\n\r]' if _QUOTES_CR else '[,"\n]'
"""The characters that make Python's csv writer quote a cell (an RE2 pattern for Arrow)."""
_QUOTED_SET = (",", '"', "\n", "\r") if _QUOTES_CR else (",", '"', "\n")


class TableBuffer:
    """Rows kept column by column until the table is written.

    Column kinds: ``str``, ``int``, ``float`` and ``bool`` (written as 0/1); None is an empty CSV cell and a
    Parquet null.
    """

    def __init__(self, columns: tuple[tuple[str, str], ...]) -> None:
        self.columns = columns
        self._cells: list[list[Value]] = [[] for _ in columns]
        self._count = 0
        self._arrays: list[Any] | None = None

    def __len__(self) -> int:
        return self._count

    def add(self, row: tuple[Value, ...]) -> None:
        """Append one row (values in column order)."""
        if len(row) != len(self.columns):
            raise ValueError(f"every row needs {len(self.columns)} values")
        for cells, value in zip(self._cells, row, strict=True):
            cells.append(value)  # no row tuple is kept: held rows would make the cyclic GC walk every cell
        self._count += 1
        self._arrays = None

    def extend(self, rows: list[tuple[Value, ...]]) -> None:
        """Append rows (values in column order)."""
        if not rows:
            return
        if any(len(row) != len(self.columns) for row in rows):
            raise ValueError(f"every row needs {len(self.columns)} values")
        for cells, column in zip(self._cells, zip(*rows, strict=True), strict=True):
            cells.extend(column)
        self._count += len(rows)
        self._arrays = None

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
        self._arrays = None

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

    def _typed_arrays(self) -> list[Any]:
        """One Arrow array per column (string, int64, float64; bool as int64 0/1), shared by both files."""
        if self._arrays is None:
            self._arrays = [_arrow_column(self._typed(i), kind) for i, (_, kind) in enumerate(self.columns)]
        return self._arrays

    def csv_bytes(self) -> bytes:
        """UTF-8 CSV with a header row, minimal quoting and LF line ends."""
        return b"".join(self.csv_chunks())

    def csv_chunks(self) -> Iterator[bytes | memoryview]:
        """The bytes of :meth:`csv_bytes` a slice of rows at a time (for writing without a copy of the text)."""
        if len(self.columns) < 2 or not self._count:
            yield self._python_csv()  # a lone empty field is quoted: the columnar path does not need that rule
            return
        header = io.StringIO()
        csv.writer(header, lineterminator="\n").writerow([name for name, _ in self.columns])
        yield header.getvalue().encode()
        arrays = self._typed_arrays()
        for start in range(0, self._count, _BATCH_ROWS):  # a slice at a time: the quoted copies stay small
            stop = min(start + _BATCH_ROWS, self._count)
            texts = [self._csv_text(i, array.slice(start, stop - start), start, stop) for i, array in enumerate(arrays)]
            yield from _joined_lines(texts)  # Arrow buffers: bytes-like, not copied

    def _csv_text(self, index: int, array: Any, start: int, stop: int) -> Any:
        """The CSV cells of rows ``start:stop`` of one column as an Arrow string array without nulls."""
        import pyarrow as pa
        import pyarrow.compute as pc

        kind = self.columns[index][1]
        pool = pa.system_memory_pool()  # returns freed memory to the OS (Arrow's default pool keeps it: peak RSS)
        cells = self._cells[index][start:stop] if array.null_count < len(array) else []
        if array.null_count == len(array):  # every cell empty (common: fields a trace format lacks)
            array = pc.cast(array, pa.string(), memory_pool=pool)
        elif kind == "str":
            array = _quoted(_spreadsheet_safe(array, cells, pool), cells, pool)
        elif kind == "float" or (kind == "int" and not set(map(type, cells)) <= {int, type(None)}):
            # Python's text of the value itself: an int in a float column stays "3", a float is its repr
            array = _arrow_column([None if v is None else str(v) for v in cells], "str")
        else:
            array = pc.cast(array, pa.string(), memory_pool=pool)
        return pc.coalesce(array, _text_scalars("")[0], memory_pool=pool)

    def _python_csv(self) -> bytes:
        buffer = io.BytesIO()
        text = io.TextIOWrapper(buffer, encoding="utf-8", newline="")
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow([name for name, _ in self.columns])
        rows = zip(*(self._typed(i) for i in range(len(self.columns))), strict=True)
        writer.writerows(map(spreadsheet_safe_row, rows))
        text.flush()
        data = buffer.getvalue()
        text.detach()
        return data

    def parquet_bytes(self) -> bytes:
        """A Parquet file with typed columns (string, int64, float64; bool as int64 0/1)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_arrays(self._typed_arrays(), names=[name for name, _ in self.columns])
        self._arrays = None  # the CSV is written first: nothing needs the Arrow copy of the cells any more
        sink = io.BytesIO()
        pq.write_table(table, sink, memory_pool=pa.system_memory_pool())
        return sink.getvalue()


def _quoted(array: Any, cells: list[Value], pool: Any) -> Any:
    """Text cells quoted the way Python's csv writer quotes them (minimal quoting)."""
    import pyarrow.compute as pc

    if not _may_need_quotes(cells):
        return array  # most text columns hold no comma, quote or line end at all: no per-cell test needed
    needs = pc.match_substring_regex(array, _QUOTED_CHARS, memory_pool=pool)  # null (None) cells: null
    quoting = pc.sum(needs).as_py() or 0  # in Arrow: a Python test per cell is several times slower
    if not quoting:
        return array
    quote, empty = _text_scalars('"', "")
    doubled = pc.replace_substring(array, '"', '""', memory_pool=pool)
    quoted = pc.binary_join_element_wise(quote, doubled, quote, empty, memory_pool=pool)
    if quoting < len(array):
        quoted = pc.if_else(needs, quoted, array, memory_pool=pool)  # a null test: a null (empty) cell
    return quoted


def _spreadsheet_safe(array: Any, cells: list[Value], pool: Any) -> Any:
    """The text cells of a slice with :func:`spreadsheet_safe` applied (the array itself when none starts a formula)."""
    import pyarrow.compute as pc

    starts = pc.match_substring_regex(array, FORMULA_START, memory_pool=pool)
    if not pc.any(starts).as_py():
        return array
    return _arrow_column([spreadsheet_safe(v) if isinstance(v, str) else v for v in cells], "str")


def _may_need_quotes(cells: list[Value]) -> bool:
    """False when no cell of a text slice holds a character that makes Python's csv writer quote it.

    One joined copy searched with ``str.__contains__`` (memchr): several times faster than Arrow's regex
    test of every cell on long text without such characters. True (test each cell) for anything but text.
    """
    try:
        joined = "".join(filter(None, cells))  # type: ignore[arg-type]
    except TypeError:
        return True
    return any(char in joined for char in _QUOTED_SET)


def _joined_lines(texts: list[Any]) -> list[Any]:
    """The CSV lines of a slice of rows (cells already quoted), as Arrow buffers (no copy)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    pool = pa.system_memory_pool()
    empty, line_end, comma = _text_scalars("", "\n", ",")
    last = pc.binary_join_element_wise(texts[-1], empty, line_end, memory_pool=pool)
    lines = pc.binary_join_element_wise(*texts[:-1], last, comma, memory_pool=pool)
    parts = []
    for chunk in lines.chunks if hasattr(lines, "chunks") else [lines]:
        if len(chunk):
            size = pc.sum(pc.binary_length(chunk)).as_py()
            start = chunk.offset
            first = int.from_bytes(chunk.buffers()[1][4 * start : 4 * start + 4], "little")
            parts.append(chunk.buffers()[2].slice(first, size))
    return parts


def _arrow_column(cells: list[Value], kind: str) -> Any:
    """The array ``pyarrow.array(cells, type)`` returns, built from buffers when every value has the plain type.

    Other values (or a string column past 2 GiB) go through ``pyarrow.array`` itself: same array, same error.
    """
    import numpy as np
    import pyarrow as pa

    kinds: dict[str, Any] = {"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.int64()}
    types = set(map(type, cells))
    count, nulls, validity, present = len(cells), 0, None, None
    if type(None) in types:
        types.discard(type(None))
        if not types:
            return pa.nulls(count, kinds[kind])
        present = np.fromiter(map(operator.is_not, cells, repeat(None)), dtype=bool, count=count)
        nulls = count - int(np.count_nonzero(present))
        validity = _bitmap(present)
    if kind == "str" and types <= {str}:
        texts: list[str] = ["" if v is None else v for v in cells] if nulls else cells  # type: ignore[assignment,misc]
        array = _string_array(texts, validity, nulls)
        if array is not None:
            return array
    elif (kind in ("int", "bool") and types <= {int}) or (
        kind == "float" and types <= {float, int, bool} and _exact_floats(cells, types)
    ):
        arrow_type, dtype = (pa.float64(), np.float64) if kind == "float" else (pa.int64(), np.int64)
        values = np.array(cells if not nulls else [0 if v is None else v for v in cells], dtype=dtype)
        return pa.Array.from_buffers(arrow_type, count, [validity, pa.py_buffer(values)], nulls)
    return pa.array(cells, type=kinds[kind])


def _string_array(texts: list[str], validity: Any, nulls: int) -> Any:
    """A string array from one UTF-8 buffer and its offsets, or None past what 32-bit offsets reach."""
    import numpy as np
    import pyarrow as pa

    count = len(texts)
    if all(map(str.isascii, texts)):  # one byte a character: sizes are lengths, one encode for the column
        sizes = np.fromiter(map(len, texts), dtype=np.int64, count=count)
        data = "".join(texts).encode()
    else:  # no joined str of the column: past ASCII it would take 2 to 4 bytes a character
        encoded = list(map(str.encode, texts))
        sizes = np.fromiter(map(len, encoded), dtype=np.int64, count=count)
        data = b"".join(encoded)
        del encoded
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    if offsets[-1] >= 1 << 31:
        return None
    return pa.StringArray.from_buffers(
        count, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data), validity, nulls
    )


def _bitmap(flags: Any) -> Any:
    import numpy as np
    import pyarrow as pa

    return pa.py_buffer(np.packbits(np.asarray(flags, dtype=bool), bitorder="little"))


def _exact_floats(cells: list[Value], types: set[type]) -> bool:
    if int not in types:
        return True
    return all(-_FLOAT_EXACT <= v <= _FLOAT_EXACT for v in cells if type(v) is int)


def _text_scalars(*texts: str) -> list[Any]:
    """Arrow string scalars (``pyarrow.scalar`` imports pandas, like ``pyarrow.array``)."""
    array = _arrow_column(list(texts), "str")
    return [array[i] for i in range(len(texts))]
