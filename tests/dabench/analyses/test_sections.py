from __future__ import annotations

import pytest

from tracegrade.dabench import Mode
from tracegrade.dabench.analyses._sections import Section, SectionColumn, column


@pytest.mark.parametrize(
    ("section_mode", "shown"),
    [
        (Mode.STANDARD, {Mode.STANDARD, Mode.VERBOSE, Mode.RESEARCH}),
        (Mode.VERBOSE, {Mode.VERBOSE, Mode.RESEARCH}),
        (Mode.RESEARCH, {Mode.RESEARCH}),
    ],
)
def test_a_section_shows_in_its_own_mode_and_every_more_detailed_one(section_mode: Mode, shown: set[Mode]) -> None:
    section = Section(id="x", title="X", mode=section_mode)
    assert {mode for mode in Mode if section.shown_in(mode)} == shown


def test_column_shorthand_fills_every_field() -> None:
    expected = SectionColumn(key="n", label="Tasks", kind="int", priority=2, min_width=5)
    assert column("n", "Tasks", "int", 2, 5) == expected
    assert column("a", "A") == SectionColumn(key="a", label="A", kind="text", priority=0, min_width=6)


def test_a_section_reads_back_from_its_json_with_its_mode() -> None:
    section = Section(id="x", title="X", mode=Mode.VERBOSE, columns=[column("n", "N", "int")], rows=[{"n": 1}])
    document = section.model_dump(mode="json")
    assert document["mode"] == "verbose"
    assert Section.model_validate(document) == section
