"""Rendering shared by every front door: HTML pages (Jinja2), terminal tables (rich), figures (matplotlib).

HTML templates live in ``templates/``: one self-contained layout ``base.html`` and the macros of
``_macros.html``; a report adds its own template that extends the layout. Compiled templates are
cached in ``$TRACEGRADE_CACHE_DIR/templates`` (:class:`TemplateBytecodeCache`). matplotlib is
imported only when a figure is drawn.
"""

from tracegrade.render._bins import score_bins
from tracegrade.render._figures import figure_png, figure_to_data_uri, new_figure, save_figure
from tracegrade.render._filters import MISSING, bar_percent, fmt_int, fmt_pct, fmt_score, status_kind
from tracegrade.render._html import TemplateBytecodeCache, html_environment, render_html
from tracegrade.render._terminal import Column, console_width, fit_table, table_width

__all__ = [
    "MISSING",
    "Column",
    "TemplateBytecodeCache",
    "bar_percent",
    "console_width",
    "figure_png",
    "figure_to_data_uri",
    "fit_table",
    "fmt_int",
    "fmt_pct",
    "fmt_score",
    "html_environment",
    "new_figure",
    "render_html",
    "save_figure",
    "score_bins",
    "status_kind",
    "table_width",
]
