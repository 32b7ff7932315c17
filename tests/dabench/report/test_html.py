"""report.html: self-contained, every section present, figures embedded, no console errors in Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from tests.conftest import browse
from tests.render.html_checks import check_report


@pytest.fixture
def out(example_out: Path) -> Path:
    return example_out


def section_ids(out: Path) -> list[str]:
    return [s["id"] for s in orjson.loads((out / "report.json").read_bytes())["sections"]]


def test_page_is_self_contained_with_every_section_linked(out: Path) -> None:
    html = (out / "report.html").read_text()
    assert not re.search(r'(src|href)="(https?:)?//', html)
    for section in [*section_ids(out), "figures"]:
        assert f'<section id="{section}">' in html and f'href="#{section}"' in html
    assert html.count('src="data:image/png;base64,') == 4
    assert "no coordinator data" not in html  # the example has a coordinator: no empty marker
    check_report(html)


@pytest.mark.slow
def test_report_renders_every_section_in_headless_chromium(out: Path) -> None:
    dom = browse(out / "report.html")
    for section in [*section_ids(out), "figures"]:
        assert f'<section id="{section}">' in dom
    assert dom.count("<img ") == 4 and "Metric correlation matrix" in dom
    assert 'data-sort="0.6666666666666666">66.7%</td>' in dom  # accuracy cell with its raw sort value


def test_a_value_shown_with_its_count_sorts_by_its_number(out: Path) -> None:
    html = (out / "report.html").read_text()
    sorts = re.findall(r'data-sort="([^"]*)"', html)
    assert sorts and not [s for s in sorts if "(n=" in s]  # "0.667 (n=3)" would sort as text, after "1.2"
    assert re.search(r'data-sort="[0-9.e-]+">[0-9.]+ \(n=\d+\)</td>', html)
