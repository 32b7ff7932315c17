from __future__ import annotations

from tracegrade.dabench.reading._facts import tool_facts


def test_sqlite_schema_yields_tables_and_columns() -> None:
    create = "CREATE TABLE `atom` (\n  `atom_id` TEXT NOT NULL,\n  price DECIMAL(10,2),\n  PRIMARY KEY (`atom_id`)\n)"
    facts = tool_facts("inspect_sqlite_schema", {}, {"tables": [{"name": "atom", "create_sql": create}]})
    assert facts == (("table", "atom"), ("column", "atom.atom_id"), ("column", "atom.price"))


def test_listing_counts_csv_and_json_files_as_tables() -> None:
    entries = [
        {"path": "csv/a.csv", "kind": "file"},
        {"path": "json/b.json", "kind": "file"},
        {"path": "db/c.db", "kind": "file"},
        {"path": "csv", "kind": "dir"},
    ]
    assert tool_facts("list_context", {}, {"entries": entries}) == (("table", "a"), ("table", "b"))


def test_read_csv_uses_the_argument_path_when_output_has_none() -> None:
    facts = tool_facts("read_csv", {"path": "csv\\orders.csv"}, {"columns": ["id"]})
    assert facts == (("table", "orders"), ("column", "orders.id"))


def test_other_tools_and_unusable_output_give_no_facts() -> None:
    assert tool_facts("execute_python", {}, {"output": "x"}) == ()
    assert tool_facts("read_csv", {}, "not an object") == ()
