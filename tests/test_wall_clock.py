"""No test's verdict depends on the clock: a loaded machine must pass every test (speed is for benchmarks/).

An ``assert`` may not read the clock (``time.perf_counter``, ``time.monotonic``, ``time.time`` or a value
computed from one in the same function), and no Hypothesis setting may give a ``deadline`` or hide the
``too_slow`` health check (tests/conftest.py turns both off for every property test). Clock reads that only
bound how long a test waits for a child process before giving up (hang guards) are allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCKS = frozenset({"perf_counter", "monotonic", "time", "perf_counter_ns", "monotonic_ns", "time_ns"})


def _reads_clock(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in CLOCKS
        and isinstance(n.func.value, ast.Name) and n.func.value.id == "time"
        for n in ast.walk(node)
    )


def _timed_names(function: ast.AST) -> set[str]:
    """Names assigned from a clock read inside ``function`` (``started = time.perf_counter()``)."""
    return {
        target.id
        for n in ast.walk(function)
        if isinstance(n, ast.Assign) and _reads_clock(n.value)
        for target in n.targets
        if isinstance(target, ast.Name)
    }


def clock_asserts(source: str) -> list[int]:
    """Lines of ``assert`` statements whose verdict reads the clock."""
    lines = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        timed = _timed_names(function)
        for node in ast.walk(function):
            if isinstance(node, ast.Assert):
                names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
                if _reads_clock(node.test) or names & timed:
                    lines.append(node.lineno)
    return sorted(set(lines))


def time_limited_settings(source: str) -> list[int]:
    """Lines of Hypothesis settings with a deadline or without the too_slow health check."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        timed = isinstance(node, ast.keyword) and node.arg == "deadline"
        if timed and not (isinstance(node.value, ast.Constant) and node.value.value is None):  # type: ignore[attr-defined]
            lines.append(node.lineno)
        if isinstance(node, ast.Attribute) and node.attr == "too_slow":
            lines.append(node.lineno)
    return sorted(lines)


def test_no_test_asserts_on_the_clock_or_limits_an_example_by_time() -> None:
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if path == Path(__file__) or path == TESTS / "conftest.py":
            continue
        source = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(TESTS)}:{line}" for line in clock_asserts(source) + time_limited_settings(source)]
    assert found == []


def test_the_rules_find_what_they_forbid() -> None:
    timed = "def test():\n    started = time.perf_counter()\n    work()\n    assert time.perf_counter() - started < 3\n"
    assert clock_asserts(timed) == [4]
    assert clock_asserts("def test():\n    t = time.monotonic()\n    assert t\n") == [3]
    assert clock_asserts("def test():\n    deadline = time.monotonic() + 9\n    while time.monotonic() < deadline:\n"
                         "        pass\n    assert done()\n") == []
    assert time_limited_settings("settings(deadline=3000)\nsettings(deadline=None)\nHealthCheck.too_slow\n") == [1, 3]
