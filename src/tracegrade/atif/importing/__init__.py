"""Stage 7: other formats turned into ATIF trajectories: OpenTelemetry traces, Inspect AI logs, Who&When logs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif.importing._inspect import import_inspect as import_inspect
    from tracegrade.atif.importing._otel import import_otel as import_otel
    from tracegrade.atif.importing._output import ImportReport as ImportReport
    from tracegrade.atif.importing._output import ImportResult as ImportResult
    from tracegrade.atif.importing._whowhen import import_whowhen as import_whowhen

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
