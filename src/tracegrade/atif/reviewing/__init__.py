"""Stage 9: a person checks the judge: the review queue, labels appended as they are given, the review page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif.reviewing._queue import ReviewOrder as ReviewOrder
    from tracegrade.atif.reviewing._run import read_review_run as read_review_run
    from tracegrade.atif.reviewing._server import serve_review as serve_review
    from tracegrade.atif.reviewing._state import ReviewSettings as ReviewSettings
    from tracegrade.atif.reviewing._state import ReviewState as ReviewState

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
