"""Renderers and writers: run artifacts, HTML report."""

from tracegrade.reports._atif_artifacts import ARTIFACT_NAMES, read_results, step_rows, write_artifacts
from tracegrade.reports._atif_html import render_report
from tracegrade.reports._files import write_atomic

__all__ = ["ARTIFACT_NAMES", "read_results", "render_report", "step_rows", "write_artifacts", "write_atomic"]
