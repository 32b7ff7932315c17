from __future__ import annotations

import subprocess
import sys

import tracegrade.stats


def test_public_names_are_sorted_and_exported() -> None:
    names = tracegrade.stats.__all__
    # isort order, as ruff keeps it: CONSTANTS, then Classes, then functions.
    assert list(names) == sorted(names, key=lambda n: (not n.isupper(), not n[0].isupper(), n))
    assert all(hasattr(tracegrade.stats, name) for name in names)


def test_importing_stats_does_not_import_scipy() -> None:
    code = "import sys, tracegrade.stats; print('scipy' in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "False"
