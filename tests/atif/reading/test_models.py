"""The ATIF reference models load without the SDK's client, and the rest of the SDK still works afterwards."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_loading_the_models_skips_the_sdk_client() -> None:
    code = (
        "import sys\nimport tracegrade.atif.reading._models\n"
        "print('evalhub.client' in sys.modules, 'httpx' in sys.modules)"
    )
    assert _run(code) == ["False", "False"]


def test_the_whole_sdk_is_usable_afterwards_with_the_same_classes() -> None:
    code = (
        "from tracegrade.atif.reading._models import Trajectory\n"
        "import evalhub, evalhub.models\n"
        "from evalhub.adapter import FrameworkAdapter\n"
        "from evalhub.models.atif import Trajectory as Again\n"
        "print(Again is Trajectory, evalhub.models.atif.Trajectory is Trajectory,\n"
        "      evalhub.Trajectory is Trajectory, evalhub.models.JobStatus.__name__, bool(evalhub.__version__))\n"
    )
    assert _run(code) == ["True", "True", "True", "JobStatus", "True"]


def test_a_package_imported_first_is_left_alone() -> None:
    code = (
        "import sys, evalhub\n"
        "real = sys.modules['evalhub.models']\n"
        "import tracegrade.atif.reading._models\n"
        "print(sys.modules['evalhub.models'] is real, '__getattr__' in vars(evalhub))"
    )
    assert _run(code) == ["True", "False"]
