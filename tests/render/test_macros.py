from __future__ import annotations

import re
from typing import Any

from tracegrade.render import html_environment


def _macro(call: str, **context: Any) -> str:
    source = '{% import "_macros.html" as ui %}' + call
    return html_environment().from_string(source).render(**context).strip()


def test_badge_colours_by_status_and_escapes() -> None:
    assert _macro('{{ ui.badge("failed") }}') == '<span class="badge bad">failed</span>'
    assert _macro('{{ ui.badge("<x>", kind="warn") }}') == '<span class="badge warn">&lt;x&gt;</span>'


def test_metric_cards_show_formatted_values_and_a_dash_for_none() -> None:
    cards = [{"label": "Mean score", "value": "0.700", "hint": "n=12"}, {"label": "p95", "value": None}]
    html = _macro("{{ ui.metric_cards(cards) }}", cards=cards)
    assert html.count('class="card"') == 2
    assert '<div class="value">0.700</div>' in html and '<div class="value">—</div>' in html
    assert '<div class="hint">n=12</div>' in html


def test_data_table_formats_cells_and_is_sortable_and_filterable() -> None:
    columns = [
        {"key": "case", "label": "Case"},
        {"key": "score", "label": "Score", "format": "score"},
        {"key": "status", "label": "Status", "format": "badge"},
    ]
    rows = [{"case": "<a>", "score": 0.5, "status": "passed"}, {"case": "b", "score": None, "status": "error"}]
    html = _macro('{{ ui.data_table("cases", columns, rows) }}', columns=columns, rows=rows)
    assert 'data-table="cases"' in html and '<table class="data" id="cases">' in html
    assert html.count('class="sortable') == 3
    assert '<td class="num" data-sort="0.5">0.500</td>' in html and '<td class="num" data-sort="">—</td>' in html
    assert "<td>&lt;a&gt;</td>" in html and '<span class="badge bad">error</span>' in html


def test_bar_chart_scales_to_the_largest_value() -> None:
    bars = [{"label": "a", "value": 2.0}, {"label": "b", "value": 1.0}, {"label": "c", "value": None}]
    html = _macro("{{ ui.bar_chart(bars) }}", bars=bars)
    assert re.findall(r"width: ([\d.]+)%", html) == ["100.0", "50.0", "0"]


def test_histogram_heights_follow_counts() -> None:
    bins = [{"label": "0–0.5", "count": 3}, {"label": "0.5–1", "count": 12}]
    html = _macro('{{ ui.histogram(bins, caption="Step scores") }}', bins=bins)
    assert re.findall(r"height: ([\d.]+)%", html) == ["25.0", "100.0"]
    assert 'title="0.5–1: 12"' in html and "<figcaption" in html
    assert '<span class="count">12</span>' in html and 'aria-label="Step scores: 0–0.5: 3; 0.5–1: 12"' in html


def test_histogram_draws_a_marker_only_when_given() -> None:
    bins = [{"label": "0.0", "count": 1}, {"label": "0.5", "count": 0}]
    marked = _macro('{{ ui.histogram(bins, marker=0.25, marker_label="threshold") }}', bins=bins)
    assert '<div class="marker" style="left: 25.0%" title="threshold">' in marked
    assert "marker" not in _macro("{{ ui.histogram(bins) }}", bins=bins)


def test_long_text_collapses_behind_show_more() -> None:
    short = _macro("{{ ui.long_text(text) }}", text="short <b>")
    assert short == '<pre class="text">short &lt;b&gt;</pre>'
    long = _macro("{{ ui.long_text(text, limit=10) }}", text="x" * 30)
    assert "<details" in long and '<span class="preview">' + "x" * 10 + "…</span>" in long
    assert '<pre class="text">' + "x" * 30 + "</pre>" in long


def test_figure_embeds_a_data_uri_with_alt_text() -> None:
    html = _macro('{{ ui.figure(uri, "score histogram", caption="n=3") }}', uri="data:image/png;base64,iVBO+/=")
    assert '<img src="data:image/png;base64,iVBO+/=" alt="score histogram">' in html and "n=3" in html
