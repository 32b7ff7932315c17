"""tracegrade: grade AI-agent runs.

The command line (``tracegrade``, ``dabench``) is the main interface; from Python the front doors
live in :mod:`tracegrade.atif`, :mod:`tracegrade.suites` and :mod:`tracegrade.dabench`. The two
calls here cover the common ATIF case::

    import tracegrade

    loaded = tracegrade.load_trajectories(["runs/"])
    results = tracegrade.grade_trajectories(["runs/"], judge_url="http://localhost:8000/v1", judge_model="m")
    print(results.summary.atif_overall_score)
"""

from typing import Any

from tracegrade._api import grade_trajectories, load_trajectories, localise_failures

__all__ = ["__version__", "grade_trajectories", "load_trajectories", "localise_failures"]


def __getattr__(name: str) -> Any:
    """``__version__``, read from the installed package's metadata on first use."""
    if name != "__version__":
        raise AttributeError(f"module 'tracegrade' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("tracegrade")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        found = "0.0.0"
    globals()["__version__"] = found
    return found
