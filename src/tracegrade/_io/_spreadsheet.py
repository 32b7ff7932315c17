"""CSV cells made safe to open in a spreadsheet (the OWASP rule against formula injection).

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula, and one that starts
with a tab or a carriage return can hide such a start. Every CSV written for people passes its text cells
through :func:`spreadsheet_safe`, which puts a single quote before such a cell; a plain decimal number
(``-3.5``, ``+1e3``) is left as it is (a spreadsheet reads it as a number). Parquet and JSON keep the exact
text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["FORMULA_START", "spreadsheet_safe", "spreadsheet_safe_row"]

FORMULA_START = r"^[=+\-@\t\r]"
"""A cell a spreadsheet may run as a formula starts with one of these (an RE2 / Python pattern)."""
_TRIGGERS = frozenset("=+-@\t\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_safe(text: str) -> str:
    """``text``, with a leading single quote when a spreadsheet could run it as a formula."""
    if text[:1] in _TRIGGERS and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def spreadsheet_safe_row(row: Iterable[object]) -> Sequence[object]:
    """A CSV row with every text cell made :func:`spreadsheet_safe` (other values unchanged)."""
    return [spreadsheet_safe(cell) if isinstance(cell, str) else cell for cell in row]
