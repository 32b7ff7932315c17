"""tracegrade: grade AI-agent runs.

The command line (``tracegrade``, ``dabench``) is the main interface; from Python the front doors
live in :mod:`tracegrade.atif`, :mod:`tracegrade.suites` and :mod:`tracegrade.dabench`. The two
calls here cover the common ATIF case::

    import tracegrade

    loaded = tracegrade.load_trajectories(["runs/"])
    results = tracegrade.grade_trajectories(["runs/"], judge_url="http://localhost:8000/v1", judge_model="m")
    print(results.summary.atif_overall_score)
"""

from importlib.metadata import PackageNotFoundError, version

from tracegrade._api import grade_trajectories, load_trajectories

try:
    __version__ = version("tracegrade")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

__all__ = ["__version__", "grade_trajectories", "load_trajectories"]
