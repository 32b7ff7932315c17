"""Rich tables that stay readable in narrow terminals: less important columns give way first.

Text from data (names, paths, messages read from files) reaches a terminal only through
:func:`terminal_safe`: a control character would otherwise move the cursor, clear the screen or
rewrite what was printed before it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, JustifyMethod, OverflowMethod
from rich.table import Table
from rich.text import Text

from tracegrade.render._filters import MISSING, fmt_score

__all__ = ["Column", "console_width", "fit_table", "table_width", "terminal_safe"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 control characters, DEL and the bidirectional overrides (which reorder what a terminal shows)."""
_CONTROL_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character shown as an escape (ESC as four characters), so it prints as data.

    Args:
        text: Text that came from data.
        lines: Keep line ends (for a message printed over several lines); a table cell keeps none.
    """
    return (_CONTROL_BUT_NEWLINE if lines else _CONTROL).sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a :func:`fit_table` table."""

    header: str
    """Column heading."""
    key: str
    """Key of the cell value in each row mapping."""
    min_width: int = 6
    """Narrowest the column may get; longer cells are cut with an ellipsis."""
    priority: int = 0
    """Importance rank: 0 is always shown; larger numbers are less important and hidden first."""
    justify: JustifyMethod = "left"
    """Cell alignment (use "right" for numbers)."""
    overflow: OverflowMethod = "ellipsis"
    """How a cell too long for the column is cut (unless the column wraps)."""
    wrap: bool = False
    """Let a cell too long for the column continue on more lines instead of being cut."""
    max_width: int | None = None
    """Widest the column may get; None for no limit."""
    formatter: Callable[[Any], str] | None = None
    """Turns a cell value into text; by default None is "—", a float gets 3 decimals, anything else ``str``."""


def console_width() -> int:
    """Width of the terminal in characters (the ``COLUMNS`` variable, the terminal size, or 80)."""
    return Console().width


def table_width(columns: Sequence[Column]) -> int:
    """Characters a table needs when every column is at its minimum width (borders and padding included)."""
    return sum(column.min_width for column in columns) + 3 * len(columns) + 1


def fit_table(
    title: str | None,
    columns: Sequence[Column],
    rows: Iterable[Mapping[str, Any]],
    *,
    width: int | None = None,
    caption: str | None = None,
) -> Table:
    """Build a rich table that fits ``width`` characters (default: the console width).

    While the columns' minimum widths do not fit, the least important column (largest ``priority``,
    the rightmost among equals) is hidden; columns of priority 0 are never hidden. The space left is
    shared among the shown columns up to their content's width. Cells wrap only in columns marked
    ``wrap``, at spaces: such a column is at least as wide as its longest word (up to ``_WORD_CAP``
    characters), so less important columns give way before a word is broken; elsewhere text longer than
    its column ends with an ellipsis. Strings are shown literally
    (no rich markup, control characters escaped by
    :func:`terminal_safe`); the caption names the hidden columns.

    Raises:
        KeyError: a row lacks a column's key.
    """
    available = console_width() if width is None else width
    rows = list(rows)
    by_column = [[_cell(column, row[column.key]) for row in rows] for column in columns]
    columns = [_fit_words(column, texts) for column, texts in zip(columns, by_column, strict=True)]
    shown = _columns_that_fit(columns, available)
    kept = [by_column[columns.index(column)] for column in shown]
    cells = [list(row) for row in zip(*kept, strict=True)] if kept else [[] for _ in rows]
    widths = _share_width(shown, cells, available)
    hidden = [column.header for column in columns if column not in shown]
    notes = [caption] if caption else []
    if hidden:
        notes.append(f"Hidden to fit {available} columns: {', '.join(hidden)}")
    caption_text = Text(terminal_safe("\n".join(notes), lines=True), style="table.caption") if notes else None
    title_text = None if title is None else Text(terminal_safe(title), style="table.title")
    table = Table(
        title=title_text,
        box=box.SIMPLE_HEAD,
        caption=caption_text,
        caption_justify="left",
        header_style="bold",
        # as wide as its title (up to the width): a title is never folded into a narrow table, mid-word
        min_width=min(available, title_text.cell_len) if title_text is not None else None,
    )
    for column, column_width in zip(shown, widths, strict=True):
        table.add_column(
            Text(terminal_safe(column.header)), justify=column.justify,
            overflow="fold" if column.wrap else column.overflow, no_wrap=not column.wrap, width=column_width
        )
    for row_cells in cells:
        table.add_row(*row_cells)
    return table


_WORD_CAP = 24
"""The longest word a wrapping column widens for; a longer one (a path, an id) is broken where it must be."""


def _fit_words(column: Column, cells: Sequence[Text]) -> Column:
    """``column`` at least as wide as its longest word when it wraps (``_WORD_CAP`` at most)."""
    if not column.wrap:
        return column
    longest = max((cell_len(word) for cell in cells for word in cell.plain.split()), default=0)
    wide = min(max(longest, cell_len(column.header)), _WORD_CAP, column.max_width or _WORD_CAP)
    return column if wide <= column.min_width else dataclasses.replace(column, min_width=wide)


def _columns_that_fit(columns: Sequence[Column], available: int) -> list[Column]:
    shown = list(columns)
    droppable = sorted(
        (i for i, column in enumerate(columns) if column.priority > 0),
        key=lambda i: (columns[i].priority, i),
        reverse=True,
    )
    for index in droppable:
        if table_width(shown) <= available:
            break
        shown.remove(columns[index])
    return shown


def _share_width(columns: Sequence[Column], cells: Sequence[Sequence[Text]], available: int) -> list[int]:
    """Start every column at its minimum and hand out the spare width in turns, up to what each needs."""
    widths = [column.min_width for column in columns]
    wanted = [
        max(
            column.min_width,
            min(column.max_width or 1 << 30, max([cell_len(column.header)] + [row[i].cell_len for row in cells])),
        )
        for i, column in enumerate(columns)
    ]
    spare = available - table_width(columns)
    while spare > 0:
        hungry = [i for i, width in enumerate(widths) if width < wanted[i]]
        if not hungry:
            break
        share = max(1, spare // len(hungry))
        for i in hungry:
            grant = min(share, wanted[i] - widths[i], spare)
            widths[i] += grant
            spare -= grant
    return widths


def _cell(column: Column, value: Any) -> Text:
    if isinstance(value, Text):
        safe = terminal_safe(value.plain)
        return value if safe == value.plain else Text(safe, style=value.style)
    if column.formatter is not None:
        return Text(terminal_safe(column.formatter(value)))
    if value is None:
        return Text(MISSING)
    if isinstance(value, float):
        return Text(fmt_score(value))
    return Text(terminal_safe(str(value)))
