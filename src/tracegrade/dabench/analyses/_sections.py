"""The report's building block: a titled table (or panel) that says in one line when it has no data."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.dabench.analyses._params import Mode

__all__ = ["Cell", "ColumnKind", "Section", "SectionColumn", "column", "fmt", "pct", "pct_of"]

Cell = float | int | str | bool | list[float | None] | None
"""A table cell: a number, a label, a [mean, std] or [low, high] pair, or None (no value)."""
ColumnKind = Literal["text", "int", "pct", "score", "float", "seconds", "pm", "ci", "signed"]


class SectionColumn(BaseModel):
    """One column of a section table."""

    model_config = ConfigDict(frozen=True)

    key: str
    """Key of the cell in each row."""
    label: str
    kind: ColumnKind = "text"
    """How the value is shown: pct (fraction as %), score (3 decimals), pm ([mean, std]), ci ([low, high])..."""
    priority: int = 0
    """0: always shown; larger numbers give way first in a narrow terminal."""
    min_width: int = 6
    """Narrowest the terminal column may get."""


def column(key: str, label: str, kind: ColumnKind = "text", priority: int = 0, min_width: int = 6) -> SectionColumn:
    """Shorthand for a :class:`SectionColumn`."""
    return SectionColumn(key=key, label=label, kind=kind, priority=priority, min_width=min_width)


def fmt(value: float | None, spec: str = ".3f") -> str:
    """A number in the format ``spec``, or ``—``."""
    return "—" if value is None else format(value, spec)


def pct(value: float | None, missing: str = "—") -> str:
    """A fraction as a percentage with one decimal (``12.5%``), or ``missing``."""
    return missing if value is None else f"{value:.1%}"


def pct_of(hits: int, known: int) -> str:
    """``hits`` out of ``known`` as a percentage and a count (``50.0% (1/2)``)."""
    return f"{pct(hits / known)} ({hits}/{known})" if known else "— (no data)"


class Section(BaseModel):
    """A report section: a table of rows, or one line saying why there is nothing to show."""

    id: str
    """Anchor id (HTML) and JSON key."""
    title: str
    mode: Mode = Mode.STANDARD
    """The least detailed report mode that shows it."""
    columns: list[SectionColumn] = Field(default_factory=list)
    rows: list[dict[str, Cell]] = Field(default_factory=list)
    empty: str | None = None
    """When set, the section has no data and this one line says why (no table is printed)."""
    headline: str | None = None
    """A one-line verdict shown above the table (health panels)."""
    status: str | None = None
    """A status word for the headline badge (HEALTHY, DEGRADED, ...)."""
    notes: list[str] = Field(default_factory=list)
    """Lines shown under the table (what a number means)."""
    panel: bool = False
    """Shown as a framed panel (health assessments) rather than a table."""

    def shown_in(self, mode: Mode) -> bool:
        """True when the report of ``mode`` includes this section."""
        return Mode(mode).includes(self.mode)
