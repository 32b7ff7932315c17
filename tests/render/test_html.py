from __future__ import annotations

from importlib import resources

import jinja2
import pytest

from tracegrade.render import html_environment, render_html

PAGE = """{% extends "base.html" %}
{% import "_macros.html" as ui %}
{% block content %}{% call ui.section("scores", "Scores") %}<p>{{ note }}</p>{% endcall %}{% endblock %}
"""


def _page(**context: object) -> str:
    return html_environment().from_string(PAGE).render(**context)


def test_templates_ship_inside_the_package() -> None:
    templates = resources.files("tracegrade.render") / "templates"
    assert (templates / "base.html").is_file() and (templates / "_macros.html").is_file()


def test_base_layout_renders_header_nav_and_content() -> None:
    html = _page(title="Run 7", subtitle="suite smoke", sections=[{"id": "scores", "label": "Scores"}], note="hi")
    assert html.startswith("<!DOCTYPE html>")
    assert "<title>Run 7</title>" in html and '<p class="subtitle">suite smoke</p>' in html
    assert '<a href="#scores">Scores</a>' in html and '<section id="scores">' in html and "<p>hi</p>" in html


def test_layout_is_self_contained() -> None:
    html = render_html("base.html", title="t")
    assert "<style>" in html and "prefers-color-scheme:dark" in html
    for external in ("http://", "https://", "<link", "src="):
        assert external not in html


def test_context_text_is_escaped() -> None:
    html = _page(title="<script>alert(1)</script>", note="<b>&</b>")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;b&gt;&amp;&lt;/b&gt;" in html


def test_a_missing_context_name_is_an_error() -> None:
    with pytest.raises(jinja2.UndefinedError, match="title"):
        render_html("base.html")


def test_number_filters_are_available_in_templates() -> None:
    template = html_environment().from_string(
        "{{ a | fmt_score }} {{ b | fmt_pct }} {{ c | fmt_int }} {{ d | fmt_score }}"
    )
    assert template.render(a=0.25, b=0.5, c=12000, d=None) == "0.250 50.0% 12,000 —"


def test_a_context_name_may_be_called_template() -> None:
    assert "<title>t</title>" in render_html("base.html", title="t", template="unused")
