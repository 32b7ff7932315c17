"""The review page in a real browser (the system Chromium, driven by Playwright; no browser download)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import orjson
import pytest

from tests.atif.reviewing.runs import EXAMPLES, Server, judged
from tests.atif.scripted import write
from tests.conftest import unavailable
from tracegrade.cli._app import app, run_app

if os.environ.get("CI", "").lower() != "true":
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the dev extra)")

from playwright.sync_api import Browser, Page, expect, sync_playwright

T = TypeVar("T")
WAIT_MS = 60_000
"""How long an answer may take on a loaded machine (the bootstrap of the figures shares its two cores)."""


HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The judge runs the tests review, made before the browser starts (Playwright's sync API keeps an event
    loop running in this thread, and a judge run needs one of its own)."""
    folder = tmp_path_factory.mktemp("browser")
    steps = [
        {"step_id": 1, "source": "user", "message": "Task " + HOSTILE},
        {"step_id": 2, "source": "agent", "message": HOSTILE, "reasoning_content": HOSTILE,
         "tool_calls": [{"tool_call_id": "c1", "function_name": "run" + HOSTILE, "arguments": {"cmd": HOSTILE}}],
         "observation": {"results": [{"source_call_id": "c1", "content": HOSTILE}]}},
        {"step_id": 3, "source": "agent", "message": "after " + HOSTILE},
    ]
    write(folder / "in" / "t.json", {"schema_version": "ATIF-v1.7", "session_id": "s" + HOSTILE,
                                     "agent": {"name": "a" + HOSTILE, "version": "1"}, "steps": steps})
    return {"examples": judged(EXAMPLES, folder / "examples"), "hostile": judged(folder / "in", folder / "hostile")}


@pytest.fixture(scope="module")
def browser(runs: dict[str, Path]) -> Iterator[Browser]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        unavailable("chromium is not installed (apt-get install chromium)")
    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


def off_loop(function: Callable[..., T], *args: Any) -> T:
    """Run ``function`` in a thread of its own: Playwright's sync API keeps an event loop running in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function, *args).result()


def agree(*args: str) -> int:
    return off_loop(run_app, app, ["agree", *args])


def open_page(browser: Browser, url: str, width: int = 1280) -> tuple[Page, list[str]]:
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.goto(url)
    expect(page.locator("#item-title")).to_be_visible()
    return page, problems


def answered(page: Page, count: int, total: int) -> None:
    try:
        expect(page.locator("#count")).to_contain_text(f"{count} of {total} answered")
    except AssertionError:
        raise AssertionError(f"status: {page.locator('#status').inner_text()!r}") from None


def current(page: Page) -> tuple[str, int]:
    panel = page.locator("#item-panel")
    return str(panel.get_attribute("data-node")), int(panel.get_attribute("data-step") or 0)


# measure on the page -> where tracegrade agree puts it in agreement.json
PLACES = {
    "pass/fail kappa": ("step", "pass_fail", "kappa"),
    "pass/fail agreement": ("step", "pass_fail", "agreement"),
    "score Spearman rho": ("step", "scores", "spearman"),
    "category agreement": ("step", "categories", "agreement"),
    "category kappa": ("step", "categories", "kappa"),
    "decisive step = judge's lowest": ("localisation", "exact"),
    "decisive step within ±1": ("localisation", "within_1"),
}


def shown_figures(page: Page) -> dict[str, dict[str, Any]]:
    rows = {}
    for row in page.locator("#figures-judge tr.main").all():
        value = row.locator("td.value")
        interval = row.locator("td.interval")
        rows[str(row.get_attribute("data-measure"))] = {
            "value": orjson.loads(value.get_attribute("data-value") or "null"),
            "low": orjson.loads(interval.get_attribute("data-low") or "null"),
            "high": orjson.loads(interval.get_attribute("data-high") or "null"),
            "n": int(row.locator("td.n").inner_text()),
            "text": value.inner_text(),
        }
    return rows


def test_a_reviewer_labels_ten_steps_by_keyboard_reloads_and_agree_gives_the_figures_shown(
    runs: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    run = runs["examples"]
    labels = tmp_path / "labels.jsonl"
    server = Server(run, labels)
    try:
        page, problems = open_page(browser, server.url)
        total = int(page.locator("#count").inner_text().split(" of ")[1].split()[0])
        seen: list[tuple[str, int]] = []
        plan = ["f2l", "p5", "f1rd", "p4", "f3n", "p5", "f2t", "p4", "f1v", "p5"]
        for number, keys in enumerate(plan, start=1):
            seen.append(current(page))
            assert seen[-1] not in seen[:-1]  # never shown a step this reviewer answered
            for key in keys:
                page.keyboard.press(key)
            expect(page.locator("#answer-panel button.opt[aria-pressed=true]")).to_have_count(
                sum(1 for k in keys if k in "pf12345tlvrnd"))
            page.keyboard.press("Enter")
            answered(page, number, total)
            if number == 5:  # a reload resumes where the reviewer left off
                page.reload()
                expect(page.locator("#item-title")).to_be_visible()
                answered(page, 5, total)
                assert current(page) not in seen
            if number == 7:  # undo goes back to the step with the answer in the form; answering again restores it
                page.keyboard.press("u")
                answered(page, 6, total)
                assert current(page) == seen[-1]
                expect(page.locator("#answer-panel button.opt[aria-pressed=true]")).to_have_count(3)
                page.keyboard.press("Enter")
                answered(page, 7, total)
        expect(page.locator("#figures-panel[data-labels='10'][aria-busy='false']")).to_be_visible()
        shown = shown_figures(page)
        page_text = page.locator("#figures-panel").inner_text()
        assert "too few pairs to trust" in page_text or "too wide to trust" in page_text
        assert "lowest first" in page.locator("#order-note").inner_text()
        assert problems == []
    finally:
        printed = server.stop()
    assert "10 answers by 'ann'" in printed
    out = tmp_path / "agreement.json"
    assert agree(str(run), "--labels", str(labels), "-o", str(out), "-q", "--reviewer", "ann") == 0
    report = orjson.loads(out.read_bytes())
    assert report["matched"] == 10
    assert set(shown) == set(PLACES)
    for measure, place in PLACES.items():
        estimate = report
        for key in place:
            estimate = estimate[key]
        assert {k: shown[measure][k] for k in ("value", "low", "high", "n")} == {
            k: estimate[k] for k in ("value", "low", "high", "n")}, measure
        assert shown[measure]["text"] == ("\u2014" if estimate["value"] is None else f"{estimate['value']:.2f}")
    without_reviewer = tmp_path / "all.json"  # one reviewer in the file: the same figures without --reviewer
    assert agree(str(run), "--labels", str(labels), "-o", str(without_reviewer), "-q") == 0
    assert orjson.loads(without_reviewer.read_bytes())["step"] == report["step"]


def test_a_hostile_trajectory_executes_nothing_and_a_missing_token_is_refused(
    runs: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    run = runs["hostile"]
    server = Server(run, tmp_path / "labels.jsonl", "--order", "random", "--seed", "1", reviewer="<b>r</b>")
    try:
        page, problems = open_page(browser, server.url, width=390)
        for number in range(1, 4):
            page.locator("#history").evaluate("fold => { fold.open = true; }")
            item = page.locator("#item-panel")
            assert item.locator("script, img").count() == 0
            assert HOSTILE in item.inner_text()
            page.keyboard.press("m")
            page.keyboard.type(HOSTILE)
            page.keyboard.press("Escape")
            page.keyboard.press("f")
            page.keyboard.press("Enter")
            answered(page, number, 3)
        expect(page.locator("#done")).to_be_visible()
        page.keyboard.press("u")  # the note comes back into the form as text
        expect(page.locator("#note")).to_have_value(HOSTILE)
        assert page.locator("body script").count() == 1  # the page's own script only
        assert page.locator("img").count() == 0
        assert page.evaluate("() => window.__pwned") is None
        assert "<b>r</b>" in page.locator("#meta").inner_text()
        assert problems == []
        base = server.url.rsplit("/", 2)[0]
        refused = page.goto(base + "/")
        assert refused is not None and refused.status == 403
        assert "holds the token" in page.locator("body").inner_text()
    finally:
        server.stop()
