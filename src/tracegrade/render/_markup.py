"""Small pieces of HTML built in Python: the badge and the long-text toggle of every report page.

The ``badge`` and ``long_text`` macros of ``_macros.html`` call these, and report code that builds its
markup in Python (the ATIF report's step list) calls them directly: one definition of each piece. Every
value is escaped as Jinja2's autoescape does (:func:`escape_text`); the results are :class:`markupsafe.Markup`.
"""

from __future__ import annotations

from markupsafe import Markup

from tracegrade.render._filters import MISSING, status_kind

__all__ = ["badge", "escape_text", "long_text"]


def escape_text(value: object) -> str:
    """``str(markupsafe.escape(value))``: ``& < > " '`` as entities (markup kept as it is).

    Text without any of them is returned as it is.
    """
    if hasattr(value, "__html__"):
        return str(value.__html__())
    text = value if type(value) is str else str(value)
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if '"' in text:
        text = text.replace('"', "&#34;")
    if "'" in text:
        text = text.replace("'", "&#39;")
    return text


def badge(status: object, kind: str | None = None) -> Markup:
    """A coloured pill for a status word; ``kind`` (good, bad, warn, neutral) is guessed from the word unless given."""
    shown = escape_text(status if status is not None else MISSING)
    return Markup(f'<span class="badge {escape_text(kind or status_kind(status))}">{shown}</span>')


def long_text(text: str | None, limit: int = 240) -> Markup:
    """``text`` as a preview of ``limit`` characters with a "show more" toggle; short text whole, None as "—"."""
    if text is None:
        return Markup(f'<span class="muted">{MISSING}</span>')
    if len(text) <= limit:
        return Markup(f'<pre class="text">{escape_text(text)}</pre>')
    return Markup(
        f'<details class="long"><summary><span class="preview">{escape_text(text[:limit])}…</span>'
        f'<span class="more"></span></summary><pre class="text">{escape_text(text)}</pre></details>'
    )
