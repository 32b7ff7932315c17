from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.dabench.example import evaluate


@pytest.fixture(scope="session")
def example_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example run evaluated once in research mode (read-only for the tests)."""
    return evaluate(tmp_path_factory.mktemp("example"))


@pytest.fixture(scope="session")
def example_report(example_out: Path) -> dict[str, Any]:
    """report.json of :func:`example_out`."""
    document: dict[str, Any] = orjson.loads((example_out / "report.json").read_bytes())
    return document
