from __future__ import annotations

import re

import pytest

from tracegrade._io import FORMULA_START, spreadsheet_safe, spreadsheet_safe_row

ATTACKS = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://x","y")', "@SUM(1)", "+1+2", "-2+3", "\t=1", "\r=1", "-", "="]


@pytest.mark.parametrize("text", ATTACKS)
def test_a_cell_a_spreadsheet_could_run_gets_a_leading_quote(text: str) -> None:
    assert spreadsheet_safe(text) == "'" + text
    assert re.match(FORMULA_START, text)


@pytest.mark.parametrize("text", ["-3.5", "+1e3", "-0", "-.5", "1,2", "a=b", "", "'=already", " =x", "plain"])
def test_plain_numbers_and_other_text_are_left_alone(text: str) -> None:
    assert spreadsheet_safe(text) == text


def test_a_row_keeps_values_that_are_not_text() -> None:
    assert spreadsheet_safe_row(["=1", 3, None, -1.5, "ok"]) == ["'=1", 3, None, -1.5, "ok"]
