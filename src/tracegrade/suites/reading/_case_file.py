"""A case file decoded straight into columns when it is surely valid strict JSON of valid cases.

Anything in doubt gives None: the file is then read as a document and its cases validated as models, so every
problem keeps its message and place.
"""

from __future__ import annotations

from typing import Any

import orjson

from tracegrade._io import decode_typed
from tracegrade.suites.reading._columns import CASE_RECORDS, CaseColumns, record_columns

__all__ = ["case_file_columns"]


def case_file_columns(data: bytes) -> tuple[CaseColumns, list[Any]] | None:
    """The cases of a case file's bytes as columns, and as the records decoded; None unless surely valid.

    What this accepts, :func:`tracegrade._io.loads` decodes to the same values and
    :func:`~tracegrade.suites.reading._columns.case_columns` reads as the same columns. Keep the records as
    long as the columns, which hold parts of them.
    """
    cases: list[Any] | None = decode_typed(data, CASE_RECORDS)
    if not cases or not _shallow(cases):
        return None
    columns = record_columns(cases)
    return None if columns is None else (columns, cases)


def _shallow(cases: list[Any]) -> bool:
    """Whether every value nests as orjson writes it back (strict reading refuses 255 levels or more).

    Each input and gold is dumped at the depth it has in the file: the case array, a case, its input
    (then the payload or metadata); or the case array, a case, its expectations, one expectation.
    """
    containers = (dict, list)
    inputs = [value for case in cases for value in (case.input.payload, case.input.metadata)
              if type(value) in containers]
    golds = [e.expected for case in cases for e in case.expectations if type(e.expected) in containers]
    try:
        orjson.dumps([[inputs]])
        orjson.dumps([[[golds]]])
    except orjson.JSONEncodeError:
        return False
    return True
