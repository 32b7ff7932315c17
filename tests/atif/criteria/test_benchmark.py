import pytest

from tracegrade.atif.criteria._benchmark import (
    BENCHMARK_REGISTRY,
    BENCHMARK_REGISTRY_VERSION,
    BENCHMARK_RUBRIC_NOTE,
    _lookup_key,
    canonical_benchmark_name,
)
from tracegrade.atif.criteria._resolver import build_resolver
from tracegrade.errors import ConfigError
from tracegrade.rubric import ScoringMode

EXPECTED = {
    "swebench-verified": ["task_correctness", "patch_quality", "regression_safety"],
    "terminal-bench": ["task_completion", "tool_effectiveness", "environment_safety"],
    "humanevalfix": ["functional_correctness", "reasoning_quality", "code_quality"],
}


def test_registry_holds_harbor_names_with_their_criteria():
    assert BENCHMARK_REGISTRY_VERSION == 1
    assert {name: [c.name for c in r.criteria] for name, r in BENCHMARK_REGISTRY.items()} == EXPECTED
    assert all(r.version == "1" for r in BENCHMARK_REGISTRY.values())


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("SWEBench-Verified", "swebench-verified"),
        ("swebench_verified", "swebench-verified"),
        (" Terminal_Bench ", "terminal-bench"),
        ("HUMANEVALFIX", "humanevalfix"),
    ],
)
def test_lookup_ignores_case_and_underscores(given, canonical):
    assert canonical_benchmark_name(given) == canonical
    assert canonical in BENCHMARK_REGISTRY


def test_normalised_names_do_not_collide():
    assert len({_lookup_key(name) for name in BENCHMARK_REGISTRY}) == len(BENCHMARK_REGISTRY)


@pytest.mark.parametrize("name", ["swe-bench-lite", "humaneval", "", 3])
def test_unknown_benchmark_lists_known_names(name):
    with pytest.raises(ConfigError, match="benchmark_name") as info:
        canonical_benchmark_name(name)
    assert "humanevalfix, swebench-verified, terminal-bench" in str(info.value)


def test_benchmark_mode_requires_benchmark_name(fake_derive):
    with pytest.raises(ConfigError, match="benchmark_name: required") as info:
        build_resolver({"scoring_mode": "benchmark"}, derive=fake_derive, template_hash="t")
    assert "terminal-bench" in str(info.value)
    assert fake_derive.calls == []


async def test_benchmark_mode_resolves_with_note_and_registry_version(make_node, fake_derive):
    resolver = build_resolver({"scoring_mode": "benchmark", "benchmark_name": "Terminal_Bench"}, derive=fake_derive)
    resolved = await resolver.resolve(make_node([{"source": "user", "message": "ls"}]))
    assert resolved.mode is ScoringMode.BENCHMARK
    assert resolved.rubric is BENCHMARK_REGISTRY["terminal-bench"]
    provenance = resolved.provenance()
    assert provenance["benchmark_name"] == "terminal-bench"
    assert provenance["benchmark_registry_version"] == 1
    assert provenance["benchmark_rubric_note"] == BENCHMARK_RUBRIC_NOTE
    assert "no benchmark verifier" in BENCHMARK_RUBRIC_NOTE
    assert fake_derive.calls == []


def test_descriptions_are_about_one_step():
    for rubric in BENCHMARK_REGISTRY.values():
        for criterion in rubric.criteria:
            assert "step" in criterion.description
