from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"


def unavailable(reason: str) -> NoReturn:
    """Skip a test whose required component is missing; in CI (``CI=true``) that is a failure instead."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def shared_corpus() -> Path:
    """The shared corpus of real files; skipped when ../shared is absent, a failure in CI."""
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        unavailable("../shared/corpus is not available")
    return corpus
