"""The product's table writers: CSV rows through ``csv.writer``, Parquet columns through one Arrow builder."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["arrow_column", "csv_chunks", "parquet_bytes"]

_BATCH_ROWS = 4096
"""Rows written into one CSV piece."""
_FLOAT_EXACT = 1 << 53
"""Integers a float64 column holds exactly (``pyarrow.array`` refuses larger ones)."""


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
    validity = _bits([value is not None for value in values]) if nulls else None
    plain = [value for value in values if value is not None] if nulls else values
    types = set(map(type, plain))
    if pa.types.is_string(kind) and types <= {str}:
        array = _strings([value if value is not None else "" for value in values] if nulls else values, validity,
                         nulls)
        if array is not None:
            return array
    elif pa.types.is_boolean(kind) and types <= {bool}:
        return pa.Array.from_buffers(kind, count, [validity, _bits([value is True for value in values])], nulls)
    elif (dtype := _numeric_dtype(kind, plain, types)) is not None:
        data = np.array([0 if value is None else value for value in values], dtype=dtype)
        return pa.Array.from_buffers(kind, count, [validity, pa.py_buffer(data)], nulls)
    elif _is_score_map(kind) and all(_map_entries(value) for value in plain):
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
        if not plain or -(1 << bits) <= min(plain) <= max(plain) < 1 << bits:
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

    if all(map(str.isascii, texts)):  # a character is a byte: one encoding, and the lengths are the texts' own
        data, lengths = "".join(texts).encode("ascii"), list(map(len, texts))
    else:
        encoded = [text.encode() for text in texts]
        data, lengths = b"".join(encoded), [len(piece) for piece in encoded]
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
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
