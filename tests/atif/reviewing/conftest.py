from __future__ import annotations

from pathlib import Path

import pytest

from tests.atif.reviewing.runs import EXAMPLES, judged


@pytest.fixture(scope="session")
def examples_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled examples judged once a session by the scripted spread judge (tests only read it)."""
    return judged(EXAMPLES, tmp_path_factory.mktemp("review") / "run")
