from __future__ import annotations

from pathlib import Path

from tracegrade.dabench.tables._docs import render_columns_doc

DOCS = Path(__file__).resolve().parents[3] / "docs"


def test_columns_doc_is_generated_from_the_table_and_fresh() -> None:
    current = (DOCS / "dabench-columns.md").read_text(encoding="utf-8")
    assert current == render_columns_doc(), "regenerate: python -m tracegrade.dabench.columns_doc"


def test_cells_that_would_break_a_markdown_table_are_escaped() -> None:
    doc = render_columns_doc()
    assert "| `coordinator_final_decision` | str | APPROVE_FINAL\\|RETRY_EXECUTION\\|REPLAN |" in doc
    assert "≥" in doc and "<" not in doc.split("## task_metrics.csv")[1].replace("&lt;", "")
