"""What every HTML report tracegrade writes must hold; the tests of each report writer call :func:`check_report`.

- no cell (and no visible text) shows a Python ``repr`` of a dict or list (a record handed to a text cell);
- no cell shows ``None`` for a missing value (the reports write an em dash);
- no tag planted in the input comes out unescaped;
- every in-page link (``href="#…"``) leads to an element with that id.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

__all__ = ["PLANTED", "check_report"]

PLANTED = "<b class=planted>x</b>"
"""Markup a test puts into its inputs (a message, a name, a reason); :func:`check_report` looks for it unescaped."""

_REPR = re.compile(r"[\[{]\s*'[^']*'\s*[:,\]}]")
"""The start of a Python dict or list repr: ``{'text': …``, ``['a', …``."""
_HIDDEN = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
_CELL = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")


def check_report(page: str, planted: Iterable[str] = (PLANTED,)) -> None:
    """Fail with the first offending piece of ``page``, described."""
    visible = _HIDDEN.sub("", page)
    text = html.unescape(_TAG.sub(" ", visible))
    found = _REPR.search(text)
    assert found is None, f"a Python repr is shown: {text[max(0, found.start() - 80):found.end() + 80]!r}"
    for cell in _CELL.findall(visible):
        shown = html.unescape(_TAG.sub("", cell)).strip()
        assert shown != "None", f"a cell shows None instead of a dash: {cell[:200]!r}"
    for tag in planted:
        assert tag not in page, f"input markup {tag!r} is in the page unescaped"
    ids = {html.unescape(i) for i in re.findall(r"""\bid=["']([^"']+)["']""", page)}
    for target in set(re.findall(r"""\bhref=["']#([^"']+)["']""", page)):
        assert html.unescape(target) in ids, f"link #{target} leads to no element"
