"""The badge and long-text pieces built in Python are what the macros of _macros.html show."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup, escape

from tracegrade.render import badge, escape_text, html_environment, long_text


def _macro(call: str) -> str:
    return html_environment().from_string('{% import "_macros.html" as ui %}' + call).render()


def test_a_badge_is_coloured_by_its_word_and_escaped() -> None:
    assert badge("failed") == '<span class="badge bad">failed</span>'
    assert badge("<x>", "warn") == '<span class="badge warn">&lt;x&gt;</span>'
    assert badge(None) == '<span class="badge neutral">—</span>'
    assert _macro('{{ ui.badge("<x>", kind="warn") }}') == badge("<x>", "warn")


def test_long_text_shows_a_preview_past_its_limit() -> None:
    assert long_text(None) == '<span class="muted">—</span>'
    assert long_text("a<b", 3) == '<pre class="text">a&lt;b</pre>'
    assert long_text("a'b&c", 2) == (
        '<details class="long"><summary><span class="preview">a&#39;…</span><span class="more"></span></summary>'
        '<pre class="text">a&#39;b&amp;c</pre></details>'
    )
    assert _macro('{{ ui.long_text("x" * 300) }}') == long_text("x" * 300)


@given(st.one_of(st.text(), st.text(st.sampled_from(list("ab<>&\"' \n"))), st.integers(), st.floats(), st.none()))
def test_escape_text_is_markupsafe_escape(value: object) -> None:
    assert escape_text(value) == str(escape(value))
    assert type(escape_text(value)) is str


def test_escape_text_keeps_markup() -> None:
    assert escape_text(Markup("<b>x</b>")) == "<b>x</b>"
