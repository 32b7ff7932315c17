from __future__ import annotations

from tracegrade.dabench.metrics._columns import CATEGORIES, TASK_COLUMNS


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


def test_column_names_are_unique() -> None:
    names = [c.name for c in TASK_COLUMNS]
    assert len(set(names)) == len(names)
