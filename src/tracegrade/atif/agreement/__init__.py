"""Stage 6: judge quality: agreement with human labels and failure localisation, and its report rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif.agreement._labels import Label as Label
    from tracegrade.atif.agreement._labels import of_reviewer as of_reviewer
    from tracegrade.atif.agreement._labels import read_labels as read_labels
    from tracegrade.atif.agreement._report import agreement_rows as agreement_rows
    from tracegrade.atif.agreement._report import issue_rows as issue_rows
    from tracegrade.atif.agreement._report import render_agreement as render_agreement
    from tracegrade.atif.agreement._strategies import LocalisationAgreement as LocalisationAgreement
    from tracegrade.atif.agreement._strategies import measure_localisations as measure_localisations

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
