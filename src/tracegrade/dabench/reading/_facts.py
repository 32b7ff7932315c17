"""Discovery facts (tables and columns seen) read from exploration tool output."""

from __future__ import annotations

import functools
import re

__all__ = ["tool_facts"]

Fact = tuple[str, str]
_TABLE_FILES = (".csv", ".json")
_SKIP_SQL = ("PRIMARY", "FOREIGN", "UNIQUE", "CONSTRAINT", "CHECK", ")")
_IDENT = re.compile(r"""^\s*[`"\[]?([^`"\]\s]+(?:\s[^`"\]\s]+)*?)[`"\]]?\s""")


def _stem(path: object) -> str | None:
    if not isinstance(path, str) or not path:
        return None
    return _path_stem(path)


@functools.lru_cache(maxsize=4096)
def _path_stem(path: str) -> str:
    """The file name without its extension (cached: a run reads the same few files in every task)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name else name


def tool_facts(tool: str, args: object, content: object) -> tuple[Fact, ...]:
    """("table", name) and ("column", "table.column") facts from one successful tool call."""
    if not isinstance(content, dict):
        return ()
    path = content.get("path") or (args.get("path") if isinstance(args, dict) else None)
    if tool == "list_context":
        return _listing(content)
    if tool == "inspect_sqlite_schema":
        return _sqlite(content)
    table = _stem(path)
    if table is None or tool not in ("read_csv", "read_json", "inspect_data"):
        return ()
    facts: list[Fact] = [("table", table)]
    for column in content.get("columns") or []:
        name = column.get("name") if isinstance(column, dict) else column
        if isinstance(name, str):
            facts.append(("column", f"{table}.{name}"))
    return tuple(facts)


def _listing(content: dict[str, object]) -> tuple[Fact, ...]:
    entries = content.get("entries")
    if not isinstance(entries, list):
        return ()
    facts = []
    for entry in entries:
        if isinstance(entry, dict) and entry.get("kind") == "file":
            path = str(entry.get("path", ""))
            stem = _stem(path)
            if stem and path.lower().endswith(_TABLE_FILES):
                facts.append(("table", stem))
    return tuple(facts)


def _sqlite(content: dict[str, object]) -> tuple[Fact, ...]:
    tables = content.get("tables")
    if not isinstance(tables, list):
        return ()
    facts: list[Fact] = []
    for table in tables:
        if not isinstance(table, dict) or not isinstance(table.get("name"), str):
            continue
        name = table["name"]
        facts.append(("table", name))
        sql = table.get("create_sql")
        body = sql.split("(", 1)[1] if isinstance(sql, str) and "(" in sql else ""
        for line in body.replace(",", "\n").splitlines():
            stripped = line.strip()
            if not stripped or stripped.upper().startswith(_SKIP_SQL):
                continue
            match = _IDENT.match(stripped + " ")
            if match and not match.group(1)[0].isdigit():
                facts.append(("column", f"{name}.{match.group(1)}"))
    return tuple(facts)
