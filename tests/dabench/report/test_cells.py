from __future__ import annotations

import pytest

from tracegrade.dabench.analyses._sections import Cell, ColumnKind
from tracegrade.dabench.report._cells import format_cell, sort_key


@pytest.mark.parametrize(
    ("value", "kind", "text"),
    [
        (None, "score", "—"),
        (0.66666, "score", "0.667"),
        (0.125, "pct", "12.5%"),
        (12345.0, "int", "12,345"),
        (True, "int", "1"),
        (12.34, "seconds", "12.3s"),
        (0.05, "signed", "+5.0 pp"),
        (-0.125, "signed", "-12.5 pp"),
        (1.234, "float", "1.23"),
        ("task_1", "score", "task_1"),  # text in a numeric column is shown as it is
        (3, "text", "3"),
        (float("nan"), "score", "—"),
        (float("inf"), "pct", "—"),
    ],
)
def test_each_kind_of_cell(value: Cell, kind: ColumnKind, text: str) -> None:
    assert format_cell(value, kind) == text


@pytest.mark.parametrize(
    ("value", "kind", "text"),
    [
        ([0.5, 0.1], "pm", "0.500 ± 0.100"),
        ([0.5, None], "pm", "0.500 (n=1)"),
        ([3166.7, 1607.2], "pm", "3,167 ± 1,607"),  # large means lose their decimals
        ([218.51, 12.0], "pm", "218.5 ± 12.0"),  # both numbers of a cell share the larger one's format
        ([14.0, 600.0], "ci", "[14.0, 600.0]"),
        ([0.1, 0.9], "ci", "[0.100, 0.900]"),
        ([0.1, None], "ci", "—"),
        ([None, None], "pm", "—"),
        (None, "ci", "—"),
        (0.5, "ci", "—"),  # not a pair
    ],
)
def test_pairs_of_mean_and_spread_or_of_bounds(value: Cell, kind: ColumnKind, text: str) -> None:
    assert format_cell(value, kind) == text


def test_sort_key_is_the_raw_number_so_html_tables_sort_numerically() -> None:
    assert sort_key(0.6666666666666666) == "0.6666666666666666"
    assert sort_key(True) == "1.0" and sort_key(7) == "7.0"
    assert sort_key([0.25, 0.1]) == "0.25" and sort_key([None, None]) == ""
    assert sort_key(None) == "" and sort_key("easy") == "easy"
