"""The layout rules of docs/architecture.md, checked on the source tree."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tracegrade._lazy import declared_names

SRC = Path(__file__).resolve().parents[1] / "src" / "tracegrade"

ALLOWED: dict[str, set[str]] = {
    "_api": {"atif"},
    "_lazy": set(),
    "_io": set(),
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
"""Which shared parts and front doors each part may import (``__init__`` of the package is exempt); every part
may import ``_lazy`` and ``_io``, the floor."""

STAGES: dict[str, tuple[str, ...]] = {
    "atif": ("reading", "criteria", "asking", "scoring", "localising", "agreement", "importing", "output", "reviewing"),
    "suites": ("reading", "checking", "reporting", "running"),
    "dabench": ("reading", "metrics", "tables", "analyses", "report"),
}
"""The stage sub-packages of each front door, in order: a stage imports only itself and earlier stages."""

FACES = {
    "tracegrade.integrations.evalhub",
    *(f"tracegrade.atif.{stage}"
      for stage in ("reading", "scoring", "localising", "agreement", "importing", "output", "reviewing")),
}
"""Packages below the top level whose ``__init__`` is a public face (the ATIF stages hold what its face leaves out)."""
PUBLIC_MODULES = {
    "tracegrade.judge.testing",
    "tracegrade.atif.modes",
    "tracegrade.integrations.mlflow",
    "tracegrade.integrations.otel",
    "tracegrade.cli",
}
"""Modules another part may import directly (their names have no leading underscore)."""

ONLY_IN: dict[str, set[str]] = {"scipy": {"stats"}, "matplotlib": {"render"}, "jinja2": {"render"}}
"""Third-party libraries that only one part may import."""

MAX_MODULES = 15
"""Most modules in one folder (``__init__`` not counted)."""

MAX_FACE_NAMES = 40
"""Most names on a front door's public face: what a user imports; the rest lives on its stages' faces."""

SHARED_CLASS_NAMES_PENDING: dict[str, int] = {}
"""Class names still defined more than once, and how often (none: the ``_io`` floor holds the one JsonProblem)."""


def _part(path: Path) -> str:
    return path.relative_to(SRC).parts[0].removesuffix(".py")


def _dotted(path: Path) -> str:
    relative = path.relative_to(SRC.parent).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


@cache
def _imports(path: Path) -> tuple[tuple[str, tuple[str, ...], int], ...]:
    """Every ``tracegrade`` or third-party import of ``path``: module, names, line (type-only and local ones too)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[str, tuple[str, ...], int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, (), node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, tuple(alias.name for alias in node.names), node.lineno))
    return tuple(found)


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p != SRC / "__init__.py")


def _code_modules() -> list[Path]:
    return [p for p in _modules() if p.name != "__init__.py"]


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(SRC)}:{line}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_a_module_imports_only_what_its_part_may(path: Path) -> None:
    part = _part(path)
    allowed = ALLOWED[part] | {part, "_lazy", "_io"}
    for module, _, line in _imports(path):
        top = module.split(".")
        if top[0] == "tracegrade" and len(top) > 1:
            assert top[1] in allowed, f"{_where(path, line)} imports {module} ({part} may not)"
        elif top[0] in ONLY_IN:
            assert part in ONLY_IN[top[0]], f"{_where(path, line)} imports {top[0]} (only {ONLY_IN[top[0]]})"


def test_every_part_is_declared() -> None:
    parts = {_part(p) for p in SRC.iterdir() if (p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py"}
    assert parts - {"__init__"} <= set(ALLOWED)


@pytest.mark.parametrize("path", _code_modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_another_part_is_reached_only_through_its_public_face(path: Path) -> None:
    part = _part(path)
    for module, _, line in _imports(path):
        pieces = module.split(".")
        if pieces[0] != "tracegrade" or len(pieces) < 3 or pieces[1] == part:
            continue
        face = ".".join(pieces[:2])
        assert module in PUBLIC_MODULES | FACES, f"{_where(path, line)} reaches into {module}; import it from {face}"


@pytest.mark.parametrize("door", sorted(STAGES))
def test_a_front_door_is_a_chain_of_stages(door: str) -> None:
    folders = {p.name for p in (SRC / door).iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(STAGES[door]), f"{door}/ has stage folders {sorted(folders)}"


def _stage_modules() -> Iterator[tuple[str, str, Path]]:
    for door, stages in STAGES.items():
        for stage in stages:
            for path in sorted((SRC / door / stage).glob("*.py")):
                yield door, stage, path


@pytest.mark.parametrize("door,stage,path", list(_stage_modules()), ids=lambda v: v.name if isinstance(v, Path) else v)
def test_a_stage_imports_only_earlier_stages(door: str, stage: str, path: Path) -> None:
    order = STAGES[door]
    for module, _, line in _imports(path):
        pieces = module.split(".")
        if pieces[:2] != ["tracegrade", door]:
            continue
        assert len(pieces) > 2 and pieces[2] in order, (
            f"{_where(path, line)}: a stage imports {module} (the front door's face or top-level modules)"
        )
        assert order.index(pieces[2]) <= order.index(stage), (
            f"{_where(path, line)}: stage {stage} imports the later stage {pieces[2]}"
        )


def _graph() -> dict[str, set[str]]:
    """Module to the modules it imports, resolving names imported from a public face to their modules."""
    files = {_dotted(p): p for p in _modules()}
    graph: dict[str, set[str]] = {name: set() for name, p in files.items() if p.name != "__init__.py"}
    for name in graph:
        for module, names, _ in _imports(files[name]):
            target = files.get(module)
            if target is None:
                continue
            if target.name != "__init__.py":
                graph[name].add(module)
                continue
            declared = declared_names(target)
            graph[name].update(declared[n] for n in names if n in declared)
            graph[name].update(f"{module}.{n}" for n in names if f"{module}.{n}" in graph)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph.get(node, ()):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_through_a_circle() -> None:
    assert _cycles(_graph()) == []


def test_the_circle_check_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("door", sorted(STAGES))
def test_a_front_door_face_holds_at_most_forty_names(door: str) -> None:
    names = declared_names(SRC / door / "__init__.py")
    assert len(names) <= MAX_FACE_NAMES, f"tracegrade.{door} exports {len(names)} names (at most {MAX_FACE_NAMES})"


def _class_definitions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(_where(path, node.lineno))
    return found


def test_no_class_name_is_defined_twice() -> None:
    repeated = {name: places for name, places in _class_definitions().items()
                if len(places) > 1 and SHARED_CLASS_NAMES_PENDING.get(name) != len(places)}
    assert repeated == {}, f"class names defined more than once: {repeated}"


def test_no_folder_holds_more_than_fifteen_modules() -> None:
    for folder in [SRC, *(p for p in SRC.rglob("*") if p.is_dir() and (p / "__init__.py").exists())]:
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= MAX_MODULES, f"{folder.relative_to(SRC.parent)} holds {len(modules)} modules"


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
    "aiohttp",
    "numpy",
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


def _documented_modules() -> set[str]:
    """``atif/reading/_load.py``-style paths of the module trees drawn in docs/architecture.md."""
    text = (SRC.parents[1] / "docs" / "architecture.md").read_text()
    found: set[str] = set()
    folders: list[tuple[int, str]] = []
    for line in text.splitlines():
        stripped = line.lstrip()
        name = stripped.split(" ")[0] if stripped else ""
        depth = len(line) - len(stripped)
        if name.endswith("/") and (depth == 0 or folders):
            folders = [(d, f) for d, f in folders if d < depth] + [(depth, name.rstrip("/"))]
        elif name.endswith(".py") and folders:
            folders = [(d, f) for d, f in folders if d < depth]
            found.add("/".join([*(f for _, f in folders), name]))
        elif not stripped.startswith(("#", "|")) and not line.startswith(" ") and line and not name.endswith("/"):
            folders = []
    return found


@pytest.mark.parametrize("door", sorted(STAGES))
def test_the_architecture_doc_draws_every_module_of_a_front_door(door: str) -> None:
    actual = {str(p.relative_to(SRC)) for p in (SRC / door).rglob("*.py") if p.name != "__init__.py"}
    drawn = {path for path in _documented_modules() if path.startswith(door + "/")}
    assert drawn == actual, f"missing from the doc: {sorted(actual - drawn)}; not in the tree: {sorted(drawn - actual)}"


@pytest.mark.parametrize("package", sorted(p.parent for p in SRC.rglob("__init__.py")), ids=str)
def test_no_public_name_is_shadowed_by_a_sub_package(package: Path) -> None:
    folders = {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    assert not folders & set(declared_names(package / "__init__.py"))


TESTS = SRC.parents[1] / "tests"


def _has_logic(path: Path) -> bool:
    tree = ast.parse(path.read_text(), filename=str(path))
    return any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and not n.name.startswith("__")
               for n in ast.walk(tree))


@pytest.mark.parametrize("path", [p for p in _code_modules() if p.name != "__main__.py" and _has_logic(p)],
                         ids=lambda p: str(p.relative_to(SRC)))
def test_a_module_with_logic_has_its_mirrored_test_file(path: Path) -> None:
    relative = path.relative_to(SRC)
    folder, stem = TESTS / relative.parent, path.stem.lstrip("_")
    found = [*folder.glob(f"test_{stem}.py"), *folder.glob(f"test_{stem}_*.py")]
    assert found, f"no tests/{relative.parent}/test_{stem}.py for {relative}"


FLOOR = "_io"
"""The one part that tunes the collector, writes CSV, replaces files and decodes outside JSON (docs/architecture.md)."""
JSON_DECODERS = {("json", "loads"), ("json", "load"), ("orjson", "loads"), ("json", "JSONDecoder"),
                 ("msgspec.json", "decode"), ("msgspec.json", "Decoder"), ("csv", "writer"), ("csv", "DictWriter"),
                 ("os", "replace"), ("os", "rename"), ("os", "renames")}
"""``module.name`` uses only the floor may make (a msgspec decoder is built by the floor's caller only to be
handed to it: building one counts, since the same module could then decode with it)."""


def _dotted_name(node: ast.expr) -> str:
    """``a.b.c`` of an attribute chain on a name, else ``""``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def _floor_uses(path: Path) -> list[str]:
    """What ``path`` does that only the floor may do: each as ``line: what``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import gc" for alias in node.names if alias.name == "gc"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [f"{node.lineno}: from {node.module} import {alias.name}" for alias in node.names
                      if node.module == "gc" or (node.module, alias.name) in JSON_DECODERS]
        elif isinstance(node, ast.Attribute):
            dotted = _dotted_name(node)
            module, _, name = dotted.rpartition(".")
            if dotted.startswith("gc.") or (module, name) in JSON_DECODERS or node.attr == "raw_decode":
                found.append(f"{node.lineno}: {dotted or node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace":
            texts = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if texts[:2] == ['"', '""']:  # a CSV quote doubled by hand
                found.append(f"{node.lineno}: .replace('\"', '\"\"')")
    return sorted(found, key=lambda use: int(use.split(":")[0]))


@pytest.mark.parametrize("path", [p for p in _code_modules() if _part(p) != FLOOR],
                         ids=lambda p: str(p.relative_to(SRC)))
def test_only_the_floor_tunes_the_collector_writes_csv_replaces_files_or_decodes_outside_json(path: Path) -> None:
    """The floor (``tracegrade._io``) holds one policy for each: the JSON policy, atomic files, CSV, the collector."""
    assert _floor_uses(path) == [], f"{path.relative_to(SRC)} does what only tracegrade._io may: {_floor_uses(path)}"


def test_the_floor_check_finds_each_kind_of_use(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import gc\nimport csv, json, os\nimport msgspec, orjson\nfrom os import replace\n"
        "gc.freeze()\njson.loads('1')\norjson.loads(b'1')\nmsgspec.json.decode(b'1')\nD = msgspec.json.Decoder(int)\n"
        "csv.writer(None)\nos.replace('a', 'b')\nx = json.JSONDecoder().raw_decode('1')\n's'.replace('\"', '\"\"')\n"
        "orjson.dumps(1)\n's'.replace('a', 'b')\nb'x'.decode()\n"
    )
    assert [use.split(":")[0] for use in _floor_uses(sample)] == [
        "1", "4", "5", "6", "7", "8", "9", "10", "11", "12", "12", "13"]
