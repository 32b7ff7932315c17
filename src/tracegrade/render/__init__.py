"""Rendering shared by every front door: HTML pages (Jinja2), terminal tables (rich), figures (matplotlib).

HTML templates live in ``templates/``: one self-contained layout ``base.html`` and the macros of
``_macros.html``; a report adds its own template that extends the layout. Compiled templates are
cached in ``$TRACEGRADE_CACHE_DIR/templates`` (:class:`TemplateBytecodeCache`). matplotlib is
imported only when a figure is drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.render._bins import score_bins as score_bins
    from tracegrade.render._figures import figure_png as figure_png
    from tracegrade.render._figures import figure_to_data_uri as figure_to_data_uri
    from tracegrade.render._figures import new_figure as new_figure
    from tracegrade.render._figures import save_figure as save_figure
    from tracegrade.render._filters import MISSING as MISSING
    from tracegrade.render._filters import bar_percent as bar_percent
    from tracegrade.render._filters import fmt_int as fmt_int
    from tracegrade.render._filters import fmt_pct as fmt_pct
    from tracegrade.render._filters import fmt_score as fmt_score
    from tracegrade.render._filters import status_kind as status_kind
    from tracegrade.render._html import TemplateBytecodeCache as TemplateBytecodeCache
    from tracegrade.render._html import html_environment as html_environment
    from tracegrade.render._html import render_html as render_html
    from tracegrade.render._html import render_html_chunks as render_html_chunks
    from tracegrade.render._markup import badge as badge
    from tracegrade.render._markup import escape_text as escape_text
    from tracegrade.render._markup import long_text as long_text
    from tracegrade.render._terminal import Column as Column
    from tracegrade.render._terminal import console_width as console_width
    from tracegrade.render._terminal import fit_table as fit_table
    from tracegrade.render._terminal import table_width as table_width
    from tracegrade.render._terminal import terminal_safe as terminal_safe

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
