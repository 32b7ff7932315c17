"""Stage 8: run folders: artifacts, JSON Schemas, the HTML report, merging shards, two runs compared."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif.output._artifacts import open_run_folder as open_run_folder
    from tracegrade.atif.output._compare import ComparisonOutcome as ComparisonOutcome
    from tracegrade.atif.output._comparison_view import comparison_lines as comparison_lines
    from tracegrade.atif.output._comparison_view import render_comparison as render_comparison
    from tracegrade.atif.output._comparison_view import write_comparison as write_comparison
    from tracegrade.atif.output._judges import JudgesComparison as JudgesComparison
    from tracegrade.atif.output._judges import JudgesOutcome as JudgesOutcome
    from tracegrade.atif.output._judges import compare_judges as compare_judges
    from tracegrade.atif.output._judges_view import judges_lines as judges_lines
    from tracegrade.atif.output._judges_view import write_judges as write_judges
    from tracegrade.atif.output._pairwise import PairwiseComparison as PairwiseComparison
    from tracegrade.atif.output._pairwise import pairwise_lines as pairwise_lines
    from tracegrade.atif.output._pairwise import write_pairwise as write_pairwise
    from tracegrade.atif.output._report import render_report as render_report
    from tracegrade.atif.output._sides import GUARDED_FIELDS as GUARDED_FIELDS

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
