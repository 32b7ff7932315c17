"""report.html: self-contained, every section present, figures embedded, no console errors in Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from tests.conftest import unavailable


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


def _browse(page: Path) -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        unavailable("chromium is not installed")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
    command = [browser, *flags, "--virtual-time-budget=3000", "--dump-dom", page.as_uri()]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == [], console
    return run.stdout


@pytest.mark.slow
def test_report_renders_every_section_in_headless_chromium(out: Path) -> None:
    dom = _browse(out / "report.html")
    for section in [*section_ids(out), "figures"]:
        assert f'<section id="{section}">' in dom
    assert dom.count("<img ") == 4 and "Metric correlation matrix" in dom
    assert 'data-sort="0.6666666666666666">66.7%</td>' in dom  # accuracy cell with its raw sort value
