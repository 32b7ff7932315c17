"""An evaluated run read back from its folder: task_metrics rows plus the manifest's parameters."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tracegrade._io import loads_written
from tracegrade.dabench.metrics._params import MetricParams
from tracegrade.dabench.reading._records import Value
from tracegrade.errors import InputError

__all__ = ["Row", "RunRows", "count_true", "num", "numbers", "read_columns", "read_evaluated", "read_table",
           "run_rows"]

Row = Mapping[str, Value]
"""One task_metrics row (column → value; None is a null metric)."""


@dataclass(frozen=True)
class RunRows:
    """The task_metrics rows of one evaluated run and the parameters they were computed with."""

    run_id: str
    folder: Path
    rows: tuple[Row, ...]
    success_threshold: float = MetricParams().success_threshold
    parameters: Mapping[str, Any] = field(default_factory=dict)
    metadata: Mapping[str, Any] = field(default_factory=dict)


def read_table(
    path: Path, columns: Sequence[str] | None = None, *, present_only: bool = False
) -> list[dict[str, Value]]:
    """Rows of a Parquet table written by eval-v2 (only ``columns`` when given, or those the table has of them).

    Raises:
        InputError: the file is missing or unreadable, or (without ``present_only``) lacks one of ``columns``.
    """
    table = _read_parquet(path, columns, present_only)
    names = table.column_names  # what Table.to_pylist returns, built column by column
    if not names:
        return [{} for _ in range(table.num_rows)]
    return [dict(zip(names, row, strict=True)) for row in zip(*(c.to_pylist() for c in table.columns), strict=True)]


def read_columns(path: Path, columns: Sequence[str] | None = None) -> dict[str, list[Value]]:
    """The cells of a Parquet table written by eval-v2, column by column (only ``columns`` when given).

    Raises:
        InputError: the file is missing or unreadable, or lacks one of ``columns``.
    """
    table = _read_parquet(path, columns)
    return {name: table.column(i).to_pylist() for i, name in enumerate(table.column_names)}


def _read_parquet(path: Path, columns: Sequence[str] | None, present_only: bool = False) -> Any:
    import pyarrow.parquet as pq

    try:  # ParquetFile, not pq.read_table: that one imports pyarrow.dataset and pandas (a quarter of a second)
        with pq.ParquetFile(path) as file:
            if present_only and columns is not None:
                columns = [c for c in columns if c in file.schema_arrow.names]
            missing = [c for c in columns or () if c not in file.schema_arrow.names]
            if missing:  # ParquetFile.read skips unknown columns; pq.read_table refused them
                raise ValueError(f"no column {', '.join(missing)}")
            table = file.read(columns=list(columns) if columns is not None else None)
    except FileNotFoundError:
        raise InputError(f"{path}: missing (run `dabench eval-v2` on this run first)", code="not_evaluated") from None
    except (OSError, ValueError) as exc:  # pyarrow raises ArrowInvalid (a ValueError) on a damaged file
        raise InputError(f"{path}: unreadable Parquet table ({exc})", code="invalid_table") from None
    return table


def read_evaluated(folder: Path, columns: Sequence[str] | None = None, *, verify: bool = False) -> RunRows:
    """The task_metrics rows and manifest metadata of a folder ``dabench eval-v2`` wrote.

    Args:
        folder: The evaluated run's folder.
        columns: Read only these task_metrics columns (those the table has); all by default.
        verify: Require a manifest and check every file it lists (size and SHA-256) first, as a comparison must:
            an edited table is refused.

    Raises:
        InputError: the folder has no task_metrics table, its manifest is unreadable, or (``verify``) the folder
            does not match its manifest.
    """
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder", code="not_evaluated")
    if verify:
        from tracegrade.runs import read_manifest

        if not (folder / "task_metrics.parquet").is_file():
            raise InputError(f"{folder / 'task_metrics.parquet'}: missing (run `dabench eval-v2` on this run first)",
                             code="not_evaluated")
        read_manifest(folder, verify=True)
    rows = read_table(folder / "task_metrics.parquet", columns, present_only=True)
    metadata: dict[str, Any] = {}
    manifest = folder / "manifest.json"
    if manifest.is_file():
        try:
            metadata = dict(loads_written(manifest.read_bytes()).get("metadata") or {})
        except (orjson.JSONDecodeError, AttributeError):
            raise InputError(f"{manifest}: unreadable manifest", code="invalid_manifest") from None
    run_id = str(metadata.get("run_id") or (rows[0].get("run_id") if rows else None) or folder.name)
    return run_rows(run_id, folder, rows, metadata)


def run_rows(run_id: str, folder: Path, rows: Sequence[Row], metadata: Mapping[str, Any]) -> RunRows:
    """A run's rows with the parameters its manifest metadata records."""
    parameters = dict(metadata.get("parameters") or {})
    threshold = float(parameters.get("success_threshold", MetricParams().success_threshold))
    return RunRows(run_id, folder, tuple(rows), threshold, parameters, metadata)


def num(value: object) -> float | None:
    """A numeric cell as float (booleans as 0/1), None for anything else."""
    return float(value) if isinstance(value, int | float) else None


def numbers(rows: Iterable[Row], column: str) -> list[float]:
    """The non-null numeric values of ``column`` (booleans count as 0/1)."""
    return [float(value) for row in rows if isinstance(value := row.get(column), int | float)]


def count_true(rows: Iterable[Row], column: str) -> tuple[int, int]:
    """(rows where ``column`` is 1/true, rows where it is known)."""
    values = numbers(rows, column)
    return sum(1 for v in values if v == 1), len(values)
