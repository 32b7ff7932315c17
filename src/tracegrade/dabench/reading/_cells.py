"""Cell normalisation (KDD Cup Phase-1 rules, FORMATS.md §5a) and answer CSV parsing.

Every choice, including the ambiguities the rules leave open, is written down in docs/dabench-scoring.md.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path

from tracegrade.dabench.reading._records import AnswerTable
from tracegrade.errors import InputError
from tracegrade.runs import UnreadableFile, read_capped

__all__ = ["answer_from_json", "normalise_cell", "read_answer_csv", "stringify"]

NULL_TOKENS = frozenset({"", "null", "none", "nan", "nat", "<na>"})
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?")
_CENT = Decimal("0.01")
_CONTEXT = Context(prec=200)
MAX_CSV_BYTES = 20 * 1024 * 1024


@lru_cache(maxsize=1 << 16)  # a pure function of the text; answer tables repeat their values a lot
def normalise_cell(text: str) -> str:
    """Normalise one cell to its canonical text (the unit a column signature is built from).

    Order: strip whitespace (CR/LF included) → null spellings become "" → plain decimal numbers become
    2-dp ROUND_HALF_UP text → ISO dates/datetimes become canonical ISO → anything else is text, NFC,
    case kept.
    """
    value = text.strip()
    if value.casefold() in NULL_TOKENS:
        return ""
    if _NUMBER.fullmatch(value):
        number = _number(value)
        if number is not None:
            return number
    if _DATE.fullmatch(value) or _DATETIME.fullmatch(value):
        moment = _moment(value)
        if moment is not None:
            return moment
    return unicodedata.normalize("NFC", value)


def _number(value: str) -> str | None:
    try:
        rounded = Decimal(value).quantize(_CENT, rounding=ROUND_HALF_UP, context=_CONTEXT)
    except InvalidOperation:
        return None
    if rounded.is_zero():
        rounded = abs(rounded)
    return f"{rounded:f}"


def _moment(value: str) -> str | None:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        return parsed.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"
    if parsed.hour == parsed.minute == parsed.second == parsed.microsecond == 0:
        return parsed.date().isoformat()
    return parsed.isoformat()


def stringify(value: object) -> str:
    """Turn a JSON answer value into the text Python's csv writer would have written for it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def answer_from_json(payload: object) -> AnswerTable | None:
    """Read a trace's ``answer`` object (``{"columns": [...], "rows": [[...], ...]}``); None if unusable."""
    if not isinstance(payload, dict):
        return None
    columns, rows = payload.get("columns"), payload.get("rows")
    if not isinstance(columns, list) or not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        return None
    return AnswerTable(tuple(map(stringify, columns)), tuple(tuple(map(stringify, row)) for row in rows))


def read_answer_csv(path: Path, *, what: str) -> AnswerTable:
    """Read a prediction or gold CSV (UTF-8, BOM allowed, any line ending, header row required).

    Raises:
        InputError: code ``invalid_<what>_csv``; the message names the file and the line.
    """
    code = f"invalid_{what}_csv"
    try:
        data = read_capped(path, MAX_CSV_BYTES)  # a FIFO or device is refused, never waited on
    except UnreadableFile as exc:
        reason = f"larger than {MAX_CSV_BYTES} bytes" if exc.code == "too_large" else exc.reason
        raise InputError(f"{path}: {reason}", code=code) from None
    if b"\x00" in data:
        raise InputError(f"{path}: contains a NUL byte", code=code)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 (byte {exc.start})", code=code) from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:  # e.g. a cell over the csv module's field limit (128 KiB)
        raise InputError(f"{path}: unreadable CSV ({exc})", code=code) from None
    if not rows or not rows[0]:
        raise InputError(f"{path}: no header row", code=code)
    header = tuple(rows[0])
    body: list[tuple[str, ...]] = []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            if len(header) == 1:
                body.append(("",))  # a one-column table writes a null cell as a blank line
            continue
        if len(row) != len(header):
            raise InputError(f"{path}: line {line} has {len(row)} fields, the header has {len(header)}", code=code)
        body.append(tuple(row))
    return AnswerTable(columns=header, rows=tuple(body))
