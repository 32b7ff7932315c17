from __future__ import annotations

from rich.console import Console

from tracegrade.render import Column, fit_table, table_width

COLUMNS = [
    Column("Case", "case", min_width=12),
    Column("Score", "score", min_width=6, justify="right"),
    Column("Status", "status", min_width=9, priority=1),
    Column("Latency (s)", "latency", min_width=11, justify="right", priority=2),
    Column("Tokens", "tokens", min_width=8, justify="right", priority=3),
    Column("Judge model", "model", min_width=14, priority=3),
    Column("Explanation", "why", min_width=24, priority=4),
]
ROWS = [
    {
        "case": "case-with-a-rather-long-identifier-0001",
        "score": 0.7,
        "status": "passed",
        "latency": 1.25,
        "tokens": 1200,
        "model": "[bold]judge[/bold]",
        "why": "The agent listed the files, then edited the wrong one before recovering. " * 3,
        "extra": "ignored",
    },
    {"case": "b", "score": None, "status": "error", "latency": None, "tokens": 0, "model": "m", "why": ""},
]


def _render(width: int) -> list[str]:
    console = Console(record=True, width=width, color_system=None)
    console.print(fit_table("Cases", COLUMNS, ROWS, width=width))
    return console.export_text().splitlines()


def test_at_80_columns_the_least_important_column_is_hidden_and_named() -> None:
    lines = _render(80)
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if "Score" in line)
    assert header.split() == ["Case", "Score", "Status", "Latency", "(s)", "Tokens", "Judge", "model"]
    assert "Hidden to fit 80 columns: Explanation" in "\n".join(lines)


def test_at_160_columns_everything_is_shown_without_wrapping() -> None:
    lines = _render(160)
    assert max(len(line) for line in lines) <= 160
    text = "\n".join(lines)
    assert "Hidden" not in text and "Judge model" in text and "Explanation" in text
    body = [line for line in lines if "case-with" in line]
    assert len(body) == 1 and "…" in body[0]  # one line per row: long cells are cut, not wrapped


def test_cells_are_formatted_and_markup_is_literal() -> None:
    text = "\n".join(_render(160))
    assert "0.700" in text and "—" in text and "[bold]judge[/bold]" in text


def test_essential_columns_are_never_hidden() -> None:
    console = Console(record=True, width=30, color_system=None)
    console.print(fit_table(None, COLUMNS, ROWS, width=30))
    header = next(line for line in console.export_text().splitlines() if "Score" in line)
    assert header.split() == ["Case", "Score"]


def test_table_width_counts_padding_and_borders() -> None:
    assert table_width(COLUMNS[:2]) == 12 + 6 + 3 * 2 + 1


def test_a_wrapping_column_shows_a_long_cell_whole_on_more_lines() -> None:
    columns = [Column("Groups", "label", min_width=10, wrap=True), Column("n", "n", min_width=3, justify="right")]
    console = Console(record=True, width=24, color_system=None)
    console.print(fit_table(None, columns, [{"label": "First try vs replanned", "n": 1}], width=24))
    text = console.export_text()
    assert "…" not in text and "First try vs" in text and "replanned" in text
    assert max(len(line) for line in text.splitlines()) <= 24
