"""Small pieces of HTML built in Python: the badge and the long-text toggle of every report page.

The ``badge`` and ``long_text`` macros of ``_macros.html`` call these, and report code that builds its
markup in Python (the ATIF report's step list) calls them directly: one definition of each piece. Every
value is escaped with markupsafe, as Jinja2's autoescape does; the results are :class:`markupsafe.Markup`.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from tracegrade.render._filters import MISSING, status_kind

__all__ = ["badge", "long_text"]


def badge(status: object, kind: str | None = None) -> Markup:
    """A coloured pill for a status word; ``kind`` (good, bad, warn, neutral) is guessed from the word unless given."""
    shown = escape(status if status is not None else MISSING)
    return Markup(f'<span class="badge {escape(kind or status_kind(status))}">{shown}</span>')


def long_text(text: str | None, limit: int = 240) -> Markup:
    """``text`` as a preview of ``limit`` characters with a "show more" toggle; short text whole, None as "—"."""
    if text is None:
        return Markup(f'<span class="muted">{MISSING}</span>')
    if len(text) <= limit:
        return Markup(f'<pre class="text">{escape(text)}</pre>')
    return Markup(
        f'<details class="long"><summary><span class="preview">{escape(text[:limit])}…</span>'
        f'<span class="more"></span></summary><pre class="text">{escape(text)}</pre></details>'
    )
