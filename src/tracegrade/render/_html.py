"""HTML rendering: one Jinja2 environment over the templates shipped in this package."""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from tracegrade.render._filters import bar_percent, fmt_int, fmt_pct, fmt_score, status_kind

__all__ = ["html_environment", "render_html"]


@cache
def html_environment() -> jinja2.Environment:
    """The shared Jinja2 environment: package templates, autoescape on, undefined names are errors.

    Filters: ``fmt_score``, ``fmt_pct``, ``fmt_int``, ``status_kind`` and ``bar_percent``.
    """
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("tracegrade.render", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters.update(
        fmt_score=fmt_score, fmt_pct=fmt_pct, fmt_int=fmt_int, status_kind=status_kind, bar_percent=bar_percent
    )
    return environment


def render_html(template: str, /, **context: Any) -> str:
    """Render a template of ``tracegrade/render/templates`` (e.g. ``"suite_report.html"``) to a string.

    Every value is HTML-escaped unless marked safe (``markupsafe.Markup``).

    Raises:
        jinja2.TemplateNotFound: no such template.
        jinja2.UndefinedError: the template uses a name missing from ``context``.
    """
    return html_environment().get_template(template).render(**context)
