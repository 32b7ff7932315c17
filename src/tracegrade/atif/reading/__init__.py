"""Stage 1: read ATIF files into validated, immutable trajectory trees (strict JSON, safe references, limits).

The loader's entry points are on :mod:`tracegrade.atif`; this face holds the per-file and per-input records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif.reading._load import LISTED_PROBLEMS as LISTED_PROBLEMS
    from tracegrade.atif.reading._records import FileReport as FileReport
    from tracegrade.atif.reading._records import InputAccount as InputAccount

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
