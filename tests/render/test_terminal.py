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


def test_terminal_safe_escapes_control_characters_and_bidi_overrides() -> None:
    from tracegrade.render import terminal_safe

    assert terminal_safe("a\x1b[2Jb\x07\x00\x9b\x7f\u202ez\n") == "a\\x1b[2Jb\\x07\\x00\\x9b\\x7f\\u202ez\\x0a"
    assert terminal_safe("two\nlines\r", lines=True) == "two\nlines\\x0d"
    assert terminal_safe("plain é 𝄞 text") == "plain é 𝄞 text"


def test_fit_table_escapes_control_characters_in_every_part() -> None:
    from rich.text import Text

    console = Console(width=120, record=True, force_terminal=True, color_system=None)
    rows = [{"case": "\x1b[2J", "score": 1.0, "status": Text("ok\x1b]0;pwned\x07", style="green"), "latency": None,
             "tokens": 1, "model": "m", "why": ""}]
    columns = [Column("Case\x1b[1m", "case"), *COLUMNS[1:]]
    console.print(fit_table("title \x1b[31m", columns, rows, caption="caption \x1b[5m"))
    text = console.export_text()
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[2J" in text and "title \\x1b[31m" in text and "caption \\x1b[5m" in text


def test_a_wrapping_column_shows_a_long_cell_whole_on_more_lines() -> None:
    columns = [Column("Groups", "label", min_width=10, wrap=True), Column("n", "n", min_width=3, justify="right")]
    console = Console(record=True, width=24, color_system=None)
    console.print(fit_table(None, columns, [{"label": "First try vs replanned", "n": 1}], width=24))
    text = console.export_text()
    assert "…" not in text and "First try vs" in text and "replanned" in text
    assert max(len(line) for line in text.splitlines()) <= 24


def test_a_title_wider_than_its_table_is_never_broken_mid_word() -> None:
    import io

    title = "Localisation (all-at-once): 12 localised, 3 none found, 1 failed of 16 in runs/2026-11-30/nightly-batch"
    table = fit_table(title, [Column("A", "a", min_width=4), Column("B", "b", min_width=4)], [{"a": "x", "b": "y"}],
                      width=80)
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(table)
    lines = console.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines)
    shown = " ".join(line.strip() for line in lines[:2])
    assert shown == title  # before: folded into the 15-column table, "runs/2026-1" / "1-30/nightly-b…"


def test_a_less_important_column_gives_way_before_a_word_is_broken() -> None:
    columns = [Column("Task", "task", min_width=8), Column("Outcome", "outcome", min_width=7, wrap=True),
               Column("Tokens", "tokens", min_width=6, justify="right", priority=4),
               Column("Root cause", "cause", min_width=12, wrap=True)]
    rows = [{"task": "task_173", "outcome": "missing_artefact", "tokens": 16222, "cause": "max_steps_exhausted"}]
    console = Console(record=True, width=56, color_system=None)
    console.print(fit_table(None, columns, rows, width=56))
    text = console.export_text()
    assert "missing_artefact" in text and "max_steps_exhausted" in text  # whole words, on one line each
    assert "Hidden to fit 56 columns: Tokens" in text
