"""The import rules of docs/architecture.md, checked on the source tree."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "tracegrade"

ALLOWED: dict[str, set[str]] = {
    "_api": {"atif"},
    "_lazy": set(),
    "_cache_root": set(),
    "errors": set(),
    "params": set(),
    "stats": {"errors"},
    "runs": {"errors"},
    "render": {"errors", "runs", "_cache_root"},
    "rubric": {"errors"},
    "judge": {"errors", "_cache_root"},
    "atif": {"errors", "params", "stats", "runs", "render", "rubric", "judge"},
    "suites": {"errors", "params", "stats", "runs", "render", "rubric", "judge"},
    "dabench": {"errors", "params", "stats", "runs", "render", "rubric", "judge"},
    "integrations": {"errors", "params", "runs", "rubric", "judge", "atif", "suites", "dabench"},
    "cli": {
        "errors",
        "params",
        "stats",
        "runs",
        "render",
        "rubric",
        "judge",
        "atif",
        "suites",
        "dabench",
        "integrations",
    },
}
"""Which shared parts and front doors each part may import (``__init__`` of the package is exempt)."""

ONLY_IN: dict[str, set[str]] = {"scipy": {"stats"}, "matplotlib": {"render"}, "jinja2": {"render"}}
"""Third-party libraries that only one part may import."""


def _part(path: Path) -> str:
    relative = path.relative_to(SRC)
    return relative.parts[0].removesuffix(".py")


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p != SRC / "__init__.py")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_a_module_imports_only_what_its_part_may(path: Path) -> None:
    part = _part(path)
    allowed = ALLOWED[part] | {part, "_lazy"}
    for module, line in _imports(path):
        top = module.split(".")
        if top[0] == "tracegrade" and len(top) > 1:
            assert top[1] in allowed, f"{path.relative_to(SRC)}:{line} imports {module} ({part} may not)"
        elif top[0] in ONLY_IN:
            assert part in ONLY_IN[top[0]], f"{path.relative_to(SRC)}:{line} imports {top[0]} (only {ONLY_IN[top[0]]})"


def test_every_part_is_declared() -> None:
    parts = {_part(p) for p in SRC.iterdir() if (p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py"}
    assert parts - {"__init__"} <= set(ALLOWED)


HEAVY = (
    "mlflow",
    "pandas",
    "pyarrow",
    "matplotlib",
    "opentelemetry",
    "scipy",
    "evalhub.adapter",
    "evalhub.client",
    "httpx",
)


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["validate", "examples/atif"]])
def test_start_up_does_not_import_heavy_libraries(argv: list[str]) -> None:
    code = (
        "import sys\n"
        "from tracegrade.cli._app import app, run_app\n"
        f"code = run_app(app, {argv!r})\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m in {HEAVY!r})\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=SRC.parents[1], check=False)
    assert "HEAVY []" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
