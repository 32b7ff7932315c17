from __future__ import annotations

from pathlib import Path

import tracegrade.dabench as dabench
from tracegrade.dabench.metrics._columns import CATEGORIES, TASK_COLUMNS
from tracegrade.dabench.metrics._registry import FAMILIES
from tracegrade.dabench.tables._docs import render_columns_doc

DOCS = Path(__file__).resolve().parents[3] / "docs"


def test_columns_doc_is_generated_from_the_table_and_fresh() -> None:
    current = (DOCS / "dabench-columns.md").read_text(encoding="utf-8")
    assert current == render_columns_doc(), "regenerate: python -m tracegrade.dabench.columns_doc"


def test_every_column_belongs_to_exactly_one_family() -> None:
    owned = [c for family in FAMILIES for c in family.columns]
    assert sorted(owned) == sorted(c.name for c in TASK_COLUMNS)
    assert len(set(owned)) == len(owned)


def test_columns_follow_the_seed_category_order() -> None:
    assert CATEGORIES[:3] == ("Identification", "Task Metadata", "Correctness")
    positions = [CATEGORIES.index(c.category) for c in TASK_COLUMNS]
    assert positions == sorted(positions)
    names = [c.name for c in TASK_COLUMNS]
    assert {"task_id", "final_score", "analyst_score", "outcome_status", "dataspace_task_accuracy"} <= set(names)


def test_every_column_declares_formula_type_range_and_source() -> None:
    for column in TASK_COLUMNS:
        assert column.dtype in ("int", "float", "bool", "str"), column
        assert column.formula and column.range and column.source, column


def test_public_names_exist() -> None:
    assert all(hasattr(dabench, name) for name in dabench.__all__)
