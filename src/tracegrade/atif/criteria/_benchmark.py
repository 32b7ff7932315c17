"""Built-in benchmark rubrics, named as in Harbor's benchmark registry.

These rubrics are instructions for the judge on how to score one step of an agent run on
a benchmark task. They are not the benchmarks' verifiers: no dataset ships here, no test
suite is run, and a high judge score does not mean the benchmark would count the task as
solved.
"""

from __future__ import annotations

from types import MappingProxyType

from tracegrade.errors import ConfigError
from tracegrade.rubric import Criterion, Rubric

__all__ = ["BENCHMARK_REGISTRY", "BENCHMARK_REGISTRY_VERSION", "BENCHMARK_RUBRIC_NOTE", "canonical_benchmark_name"]

BENCHMARK_REGISTRY_VERSION = 1
"""Bumped whenever a built-in rubric changes, so results say which wording scored them."""

BENCHMARK_RUBRIC_NOTE = "scoring instructions only; no benchmark verifier was run"
"""Recorded with every benchmark-mode result."""


def _rubric(name: str, *criteria: tuple[str, float, str]) -> Rubric:
    return Rubric(name=name, version=str(BENCHMARK_REGISTRY_VERSION),
                  criteria=tuple(Criterion(name=c, weight=w, description=d) for c, w, d in criteria))


_SWEBENCH_VERIFIED = _rubric(
    "swebench-verified",
    (
        "task_correctness",
        2.0,
        "Does this step move the repository toward a fix of the reported issue? Reward steps that locate "
        "the real cause, change the right code, or check the fix against the behaviour the issue asks "
        "for; penalise steps that chase a wrong cause or claim success without evidence.",
    ),
    (
        "patch_quality",
        1.0,
        "Judge any code change made or proposed in this step: is it small, focused on the issue, "
        "consistent with the surrounding code and free of debugging leftovers? Steps that only read "
        "or search are judged on whether they prepare such a change well.",
    ),
    (
        "regression_safety",
        1.0,
        "Does this step avoid breaking existing behaviour? Reward running or reasoning about the "
        "existing tests and edge cases; penalise deleting or weakening tests, broad rewrites and "
        "changes to unrelated files.",
    ),
)

_TERMINAL_BENCH = _rubric(
    "terminal-bench",
    (
        "task_completion",
        2.0,
        "Does this step bring the terminal task closer to done as stated? Reward commands and "
        "messages that produce the requested end state and check it; penalise steps that drift from "
        "the task or declare it finished when the output shows otherwise.",
    ),
    (
        "tool_effectiveness",
        1.0,
        "Are the commands or tools in this step well chosen and correctly used? Reward reading "
        "command output and reacting to errors; penalise repeated failing commands, wrong flags and "
        "ignoring what the shell reported.",
    ),
    (
        "environment_safety",
        1.0,
        "Does this step keep the environment safe? Penalise destructive commands outside the task's "
        "scope, needless privilege escalation, disabling safeguards and leaking secrets; careful, "
        "reversible actions score high.",
    ),
)

_HUMANEVALFIX = _rubric(
    "humanevalfix",
    (
        "functional_correctness",
        2.0,
        "Does this step help make the function behave as its docstring and tests require? Reward "
        "finding the actual bug and fixing it for all inputs; penalise fixes that only fit the shown "
        "examples or change the function's signature.",
    ),
    (
        "reasoning_quality",
        1.0,
        "Is the reasoning in this step sound and grounded in the code? Reward explanations that trace "
        "the faulty behaviour to its cause; penalise guesses, contradictions and claims the code does "
        "not support.",
    ),
    (
        "code_quality",
        1.0,
        "Is any code written in this step clear, minimal and idiomatic for the language? Penalise "
        "unrelated rewrites, dead code and needless complexity.",
    ),
)

BENCHMARK_REGISTRY: MappingProxyType[str, Rubric] = MappingProxyType(
    {rubric.name: rubric for rubric in (_SWEBENCH_VERIFIED, _TERMINAL_BENCH, _HUMANEVALFIX)}
)
"""Built-in rubrics by canonical benchmark name (read-only)."""


def _lookup_key(name: str) -> str:
    return name.strip().lower().replace("_", "-")


# The lookup folds case and "_" into "-"; a test checks that this maps no two names together.
_BY_KEY = {_lookup_key(name): name for name in BENCHMARK_REGISTRY}


def canonical_benchmark_name(name: object, param: str = "benchmark_name") -> str:
    """The registry name of a user-given benchmark name (case, spaces and ``_``/``-`` ignored).

    Raises:
        ConfigError: not a string, or no built-in rubric matches (naming ``param`` and the known names).
    """
    known = ", ".join(sorted(BENCHMARK_REGISTRY))
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{param}: must be a non-empty string naming a built-in benchmark ({known})")
    canonical = _BY_KEY.get(_lookup_key(name))
    if canonical is None:
        raise ConfigError(f"{param}: unknown benchmark {name.strip()!r}; known benchmarks: {known}")
    return canonical

