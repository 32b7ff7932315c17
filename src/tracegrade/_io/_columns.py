"""The product's one column builder: typed columns encoded as CSV and Parquet, and Arrow columns without pandas.

:class:`ColumnBuffer` keeps rows column by column; both files are encoded column by column in Arrow from the
same typed arrays (:func:`arrow_column`: ``pyarrow.array`` would import pandas, a quarter of a second, to
look for pandas objects). The CSV text is byte for byte what Python's ``csv.writer`` (minimal quoting, LF line
ends) writes for the same rows: numbers are Python's own ``str`` of the value, None is an empty cell, and a
cell is quoted only when it holds a comma, a quote or a line end. A text cell a spreadsheet could run as a
formula gets a leading single quote in the CSV only (:func:`spreadsheet_safe`); Parquet keeps the exact text.
Small tables written row by row (an answer's CSV) go through ``csv.writer`` itself (:func:`csv_chunks`).
"""

from __future__ import annotations

import csv
import io
import operator
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice, repeat
from typing import TYPE_CHECKING, Any

from tracegrade._io._spreadsheet import FORMULA_START, spreadsheet_safe, spreadsheet_safe_row

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ColumnBuffer", "arrow_column", "csv_chunks", "parquet_bytes"]

Cell = str | int | float | bool | None
"""A cell of a :class:`ColumnBuffer`."""

_BATCH_ROWS = 4096
"""Rows written into one CSV piece."""
_FLOAT_EXACT = 1 << 53
"""Integers a float64 column holds exactly (``pyarrow.array`` refuses larger ones)."""


def _python_quotes(char: str) -> bool:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([char, ""])
    return buffer.getvalue().startswith('"')


_QUOTES_CR = _python_quotes("\r")
"""Whether this Python's csv writer quotes a lone carriage return (it always quotes ``,``, ``"`` and LF)."""
_QUOTED_CHARS = '[,"\n\r]' if _QUOTES_CR else '[,"\n]'
"""The characters that make Python's csv writer quote a cell (an RE2 pattern for Arrow)."""
_QUOTED_SET = (",", '"', "\n", "\r") if _QUOTES_CR else (",", '"', "\n")


class ColumnBuffer:
    """Rows kept column by column until the table is written.

    Column kinds: ``str``, ``int``, ``float`` and ``bool`` (written as 0/1); None is an empty CSV cell and a
    Parquet null.
    """

    def __init__(self, columns: tuple[tuple[str, str], ...]) -> None:
        self.columns = columns
        self._cells: list[list[Cell]] = [[] for _ in columns]
        self._count = 0
        self._arrays: list[Any] | None = None

    def __len__(self) -> int:
        return self._count

    def add(self, row: tuple[Cell, ...]) -> None:
        """Append one row (values in column order)."""
        if len(row) != len(self.columns):
            raise ValueError(f"every row needs {len(self.columns)} values")
        for cells, value in zip(self._cells, row, strict=True):
            cells.append(value)  # no row tuple is kept: held rows would make the cyclic GC walk every cell
        self._count += 1
        self._arrays = None

    def extend(self, rows: list[tuple[Cell, ...]]) -> None:
        """Append rows (values in column order)."""
        if not rows:
            return
        if any(len(row) != len(self.columns) for row in rows):
            raise ValueError(f"every row needs {len(self.columns)} values")
        for cells, column in zip(self._cells, zip(*rows, strict=True), strict=True):
            cells.extend(column)
        self._count += len(rows)
        self._arrays = None

    def extend_columns(self, columns: Sequence[Sequence[Cell]]) -> None:
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

    def select(self, names: tuple[str, ...]) -> ColumnBuffer:
        """A buffer with only ``names`` (sharing the cells)."""
        index = {name: i for i, (name, _) in enumerate(self.columns)}
        picked = ColumnBuffer(tuple(self.columns[index[n]] for n in names))
        picked._cells = [self._cells[index[n]] for n in names]
        picked._count = self._count
        return picked

    def column(self, name: str) -> list[Cell]:
        """The cells of one column."""
        return self._cells[[n for n, _ in self.columns].index(name)]

    def _typed(self, index: int) -> list[Cell]:
        cells = self._cells[index]
        if self.columns[index][1] == "bool":
            return [None if v is None else int(bool(v)) for v in cells]
        return cells

    def _typed_arrays(self) -> list[Any]:
        """One Arrow array per column (string, int64, float64; bool as int64 0/1), shared by both files."""
        if self._arrays is None:
            self._arrays = [arrow_column(self._typed(i), _KINDS[kind]) for i, (_, kind) in enumerate(self.columns)]
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
            array = arrow_column([None if v is None else str(v) for v in cells], _KINDS["str"])
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
        arrays = self._typed_arrays()
        self._arrays = None  # the CSV is written first: nothing needs the Arrow copy of the cells any more
        return parquet_bytes([name for name, _ in self.columns], arrays)


def _quoted(array: Any, cells: list[Cell], pool: Any) -> Any:
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


def _spreadsheet_safe(array: Any, cells: list[Cell], pool: Any) -> Any:
    """The text cells of a slice with :func:`spreadsheet_safe` applied (the array itself when none starts a formula)."""
    import pyarrow.compute as pc

    starts = pc.match_substring_regex(array, FORMULA_START, memory_pool=pool)
    if not pc.any(starts).as_py():
        return array
    return arrow_column([spreadsheet_safe(v) if isinstance(v, str) else v for v in cells], _KINDS["str"])


def _may_need_quotes(cells: list[Cell]) -> bool:
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


def _text_scalars(*texts: str) -> list[Any]:
    """Arrow string scalars (``pyarrow.scalar`` imports pandas, like ``pyarrow.array``)."""
    array = arrow_column(list(texts), _KINDS["str"])
    return [array[i] for i in range(len(texts))]


class _Kinds(dict[str, Any]):
    """Arrow types of the column kinds, made on first use (pyarrow is imported only when a table is written)."""

    def __missing__(self, kind: str) -> Any:
        import pyarrow as pa

        self.update({"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.int64()})
        return self[kind]


_KINDS = _Kinds()


def csv_chunks(header: Sequence[Any], rows: Iterable[Sequence[Any]]) -> Iterator[bytes]:
    """UTF-8 CSV as ``csv.writer`` writes it (minimal quoting, LF line ends; None is an empty cell), in pieces."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    iterator = iter(rows)
    while True:
        writer.writerows(islice(iterator, _BATCH_ROWS))
        piece = text.getvalue()
        if not piece:
            return
        yield piece.encode()
        text.seek(0)
        text.truncate()


def parquet_bytes(names: Sequence[str], arrays: Sequence[pa.Array]) -> bytes:
    """A Parquet file of ``arrays`` (built by :func:`arrow_column`), named ``names``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pool = pa.system_memory_pool()  # returns freed memory to the OS (Arrow's default pool keeps it: peak RSS)
    pq.write_table(pa.Table.from_arrays(list(arrays), names=list(names)), sink, memory_pool=pool)
    return sink.getvalue()


def arrow_column(values: list[Any], kind: pa.DataType) -> pa.Array:
    """The array ``pyarrow.array(values, type=kind)`` returns, built from buffers where it can be.

    ``pyarrow.array`` imports pandas to look for pandas objects (a quarter of a second of CPU, more than
    the column itself takes on most runs). Strings, 32- and 64-bit integers, doubles, booleans and
    string-to-double maps are built here; anything else (a value of another type, strings past 2 GiB)
    goes through ``pyarrow.array`` itself, so the same values give the same array and the same errors.
    """
    import numpy as np
    import pyarrow as pa

    count = len(values)
    nulls = values.count(None)  # None is found by identity; no other value is equal to it
    if nulls == count and count:  # common: a field no row has (nothing to look at, no buffer to fill)
        return pa.nulls(count, kind)
    validity = None
    if nulls:
        present = np.fromiter(map(operator.is_not, values, repeat(None)), dtype=bool, count=count)
        validity = pa.py_buffer(np.packbits(present, bitorder="little"))
    types = set(map(type, values))
    types.discard(type(None))
    plain: list[Any] = [value for value in values if value is not None] if nulls and types - {str} else values
    if pa.types.is_string(kind) and types <= {str}:
        array = _strings([value if value is not None else "" for value in values] if nulls else values, validity,
                         nulls)
        if array is not None:
            return array
    elif pa.types.is_boolean(kind) and types <= {bool}:
        return pa.Array.from_buffers(kind, count, [validity, _bits([value is True for value in values])], nulls)
    elif (dtype := _numeric_dtype(kind, plain, types)) is not None:
        data = np.array([0 if value is None else value for value in values] if nulls else values, dtype=dtype)
        return pa.Array.from_buffers(kind, count, [validity, pa.py_buffer(data)], nulls)
    elif _is_score_map(kind) and all(_map_entries(value) for value in plain if value is not None):
        array = _score_map(values, kind, validity, nulls)
        if array is not None:
            return array
    return pa.array(values, type=kind)


def _numeric_dtype(kind: pa.DataType, plain: list[Any], types: set[type]) -> Any:
    """The NumPy dtype holding ``plain`` (values of ``types``) exactly as Arrow ``kind``, or None."""
    import numpy as np
    import pyarrow as pa

    if types <= {int} and (pa.types.is_int32(kind) or pa.types.is_int64(kind)):
        bits = 31 if pa.types.is_int32(kind) else 63
        if not plain or -(1 << bits) <= min(plain) <= max(plain) < 1 << bits:  # None is not among them
            return np.int32 if bits == 31 else np.int64
    exact = int not in types or all(-_FLOAT_EXACT <= v <= _FLOAT_EXACT for v in plain if type(v) is int)
    return np.float64 if pa.types.is_float64(kind) and types <= {float, int, bool} and exact else None


def _bits(flags: list[bool]) -> pa.Buffer:
    import numpy as np
    import pyarrow as pa

    return pa.py_buffer(np.packbits(np.array(flags, dtype=bool), bitorder="little"))


def _strings(texts: list[str], validity: pa.Buffer | None, nulls: int) -> pa.Array | None:
    """A string array from one UTF-8 buffer and its offsets; None past what 32-bit offsets reach."""
    import numpy as np
    import pyarrow as pa

    count = len(texts)
    if all(map(str.isascii, texts)):  # a character is a byte: one encoding, and the lengths are the texts' own
        data, lengths = "".join(texts).encode("ascii"), np.fromiter(map(len, texts), dtype=np.int64, count=count)
    else:
        encoded = [text.encode() for text in texts]
        data, lengths = b"".join(encoded), np.fromiter(map(len, encoded), dtype=np.int64, count=count)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] >= 1 << 31:
        return None
    return pa.StringArray.from_buffers(len(texts), pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data),
                                       validity, nulls)


def _is_score_map(kind: pa.DataType) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_map(kind) and pa.types.is_string(kind.key_type) and pa.types.is_float64(kind.item_type))


def _map_entries(value: Any) -> bool:
    """Whether ``value`` is a list of (str, float) pairs, the shape :func:`step_columns` gives a map."""
    return isinstance(value, list) and all(
        type(entry) is tuple and len(entry) == 2 and type(entry[0]) is str and type(entry[1]) is float
        for entry in value
    )


def _score_map(values: list[Any], kind: pa.DataType, validity: pa.Buffer | None, nulls: int) -> pa.Array | None:
    """A string-to-double map array from buffers (``MapArray.from_arrays`` imports ``pyarrow.compute``)."""
    import numpy as np
    import pyarrow as pa

    entries = [entry for value in values if value is not None for entry in value]
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum([0 if value is None else len(value) for value in values], out=offsets[1:])
    keys = _strings([key for key, _ in entries], None, 0)
    if keys is None:
        return None
    items = pa.Array.from_buffers(
        pa.float64(), len(entries), [None, pa.py_buffer(np.array([item for _, item in entries], dtype=np.float64))]
    )
    pairs = pa.StructArray.from_arrays([keys, items], fields=[kind.key_field, kind.item_field])
    return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(offsets)], nulls, children=[pairs])
