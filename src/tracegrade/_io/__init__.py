"""The product's low-level floor, importable by every part: strict JSON, atomic files, the collector's policy.

Every JSON document read from outside the process goes through :func:`loads` (one policy:
docs/json-policy.md); every file that must appear whole through :func:`write_atomic`; the collector is
tuned in one place, :func:`command_collector`, which the CLI applies around each command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade._io._collector import command_collector as command_collector
    from tracegrade._io._collector import offline_command as offline_command
    from tracegrade._io._collector import skip_final_collection as skip_final_collection
    from tracegrade._io._columns import ColumnBuffer as ColumnBuffer
    from tracegrade._io._columns import arrow_column as arrow_column
    from tracegrade._io._columns import csv_chunks as csv_chunks
    from tracegrade._io._columns import parquet_bytes as parquet_bytes
    from tracegrade._io._files import atomic_file as atomic_file
    from tracegrade._io._files import replace_path as replace_path
    from tracegrade._io._files import write_atomic as write_atomic
    from tracegrade._io._json import MAX_DEPTH as MAX_DEPTH
    from tracegrade._io._json import JsonProblem as JsonProblem
    from tracegrade._io._json import decode_typed as decode_typed
    from tracegrade._io._json import loads as loads
    from tracegrade._io._json import loads_many as loads_many
    from tracegrade._io._json import loads_written as loads_written
    from tracegrade._io._json import objects_in_text as objects_in_text
    from tracegrade._io._json_out import INDENTED as INDENTED
    from tracegrade._io._json_out import Pieces as Pieces
    from tracegrade._io._json_out import dumps as dumps
    from tracegrade._io._json_out import items_piece as items_piece
    from tracegrade._io._json_out import write_document as write_document
    from tracegrade._io._record_structs import record_struct as record_struct
    from tracegrade._io._spreadsheet import FORMULA_START as FORMULA_START
    from tracegrade._io._spreadsheet import spreadsheet_safe as spreadsheet_safe
    from tracegrade._io._spreadsheet import spreadsheet_safe_row as spreadsheet_safe_row

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
