"""HTML rendering: one Jinja2 environment over the templates shipped in this package.

Compiled templates (``atif_report.html`` with the layout and macros it uses) are kept in
``$TRACEGRADE_CACHE_DIR/templates`` (default ``~/.cache/tracegrade/templates``), as Python keeps
compiled modules: a file is used only for the same template text, Jinja2 version, Python version
and environment options, and a folder that cannot be written only means compiling every time.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from jinja2.bccache import Bucket

from tracegrade._cache_root import cache_root
from tracegrade.render._filters import bar_percent, fmt_int, fmt_pct, fmt_score, status_kind
from tracegrade.render._markup import badge, long_text

__all__ = ["TemplateBytecodeCache", "html_environment", "render_html", "render_html_chunks", "template_cache_dir"]

_OPTIONS: dict[str, Any] = {
    "autoescape": True,
    "undefined": jinja2.StrictUndefined,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "keep_trailing_newline": True,
}
"""The environment's options; compiled code depends on them, so they are part of the cache files' names."""


class TemplateBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates in ``directory``; a file that cannot be read or written is simply not used.

    File names carry a digest of the Jinja2 version and the environment's options; Jinja2 itself
    checks the template text's checksum and the Python version before using a file.
    """

    def __init__(self, directory: Path) -> None:
        fingerprint = repr((jinja2.__version__, sorted((k, repr(v)) for k, v in _OPTIONS.items())))
        digest = hashlib.sha256(fingerprint.encode()).hexdigest()[:12]
        super().__init__(str(directory), f"jinja2-{digest}-%s.cache")
        self.path = directory

    def load_bytecode(self, bucket: Bucket) -> None:
        """Fill ``bucket`` from its file; a missing, foreign or damaged file leaves it empty (compiled again).

        Only files owned by the current user are loaded: compiled code is executed, so a file another
        user placed in a shared cache folder must not be.
        """
        try:
            with open(self._get_cache_filename(bucket), "rb") as file:
                if hasattr(os, "getuid") and os.fstat(file.fileno()).st_uid != os.getuid():
                    return
                bucket.load_bytecode(file)
        except Exception:  # unreadable or damaged (unpickling or unmarshalling errors of any kind): a miss
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        """Write ``bucket`` atomically (Jinja2 renames a complete temporary file); errors are ignored."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


def template_cache_dir() -> Path | None:
    """``$TRACEGRADE_CACHE_DIR/templates``, else ``~/.cache/tracegrade/templates``; None without a home."""
    try:
        return cache_root() / "templates"
    except RuntimeError:  # no home directory to expand
        return None


@cache
def html_environment() -> jinja2.Environment:
    """The shared Jinja2 environment: package templates, autoescape on, undefined names are errors.

    Filters: ``fmt_score``, ``fmt_pct``, ``fmt_int``, ``status_kind`` and ``bar_percent``; globals
    ``badge_html`` and ``long_text_html`` (:mod:`tracegrade.render._markup`), behind the ``badge`` and
    ``long_text`` macros.
    """
    directory = template_cache_dir()
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("tracegrade.render", "templates"),
        bytecode_cache=TemplateBytecodeCache(directory) if directory is not None else None,
        **_OPTIONS,
    )
    environment.filters.update(
        fmt_score=fmt_score, fmt_pct=fmt_pct, fmt_int=fmt_int, status_kind=status_kind, bar_percent=bar_percent
    )
    environment.globals.update(badge_html=badge, long_text_html=long_text)
    return environment


def render_html(template: str, /, **context: Any) -> str:
    """Render a template of ``tracegrade/render/templates`` (e.g. ``"suite_report.html"``) to a string.

    Every value is HTML-escaped unless marked safe (``markupsafe.Markup``).

    Raises:
        jinja2.TemplateNotFound: no such template.
        jinja2.UndefinedError: the template uses a name missing from ``context``.
    """
    return html_environment().get_template(template).render(**context)


def render_html_chunks(template: str, /, **context: Any) -> Iterator[str]:
    """:func:`render_html`'s text in pieces, as the template produces them (its loops may walk iterators).

    Raises:
        jinja2.TemplateNotFound: no such template.
        jinja2.UndefinedError: the template uses a name missing from ``context``.
    """
    return html_environment().get_template(template).generate(**context)
