"""Package faces whose names are declared once and imported on first use (PEP 562).

A package's ``__init__`` lists its public names in one place, an ``if TYPE_CHECKING:`` block of
``from module import Name as Name`` lines: type checkers read them there, and at run time
:func:`lazy_attributes` reads the same block to import each name from its module on first use,
so that importing a package stays cheap and its face cannot drift from its declaration.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(package: str) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """Module-level ``__getattr__``, ``__dir__`` and ``__all__`` of ``package``, from its declaration."""
    namespace = importlib.import_module(package).__dict__
    module_of = declared_names(Path(namespace["__file__"]))
    exported = sorted(module_of, key=_order)

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return list(exported)

    return __getattr__, __dir__, exported


def declared_names(init: Path) -> dict[str, str]:
    """Public name to its module, as imported in the ``if TYPE_CHECKING:`` block of ``init``."""
    tree = ast.parse(init.read_bytes(), filename=str(init))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    found.update((alias.asname or alias.name, statement.module) for alias in statement.names)
    return found


def _order(name: str) -> tuple[bool, bool, str]:
    """Constants first, then classes, then functions (the order ``__all__`` lists are kept in)."""
    return (not name.isupper(), not name[0].isupper(), name)
