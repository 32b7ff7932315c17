"""Each package's public surface: a sorted, unique ``__all__`` of documented, importable names."""

from __future__ import annotations

import importlib
import inspect

import pytest

PACKAGES = ["tracegrade", "tracegrade.atif", "tracegrade.judge", "tracegrade.rubric", "tracegrade.runs",
            "tracegrade.stats", "tracegrade.render", "tracegrade.suites", "tracegrade.dabench",
            "tracegrade.integrations.evalhub",
            *(f"tracegrade.atif.{stage}" for stage in ("reading", "scoring", "localising", "agreement", "importing",
                                                       "output", "reviewing")),
            "tracegrade.atif.modes"]


def _order(name: str) -> tuple[bool, bool, str]:
    return (not name.isupper(), not name[0].isupper(), name)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_unique_importable_and_documented(name: str) -> None:
    try:
        package = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            pytest.skip(f"{name} is not there yet")
        raise
    exported = package.__all__
    assert exported == sorted(exported, key=_order)
    assert len(set(exported)) == len(exported)
    for attr in exported:
        value = getattr(package, attr)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{name}.{attr} has no docstring"


def test_the_top_level_api_is_small_and_says_what_it_does() -> None:
    import tracegrade

    assert set(tracegrade.__all__) == {"__version__", "grade_trajectories", "load_trajectories", "localise_failures"}
