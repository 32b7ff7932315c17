from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"


@pytest.fixture
def shared_corpus() -> Path:
    """The shared corpus of real files; tests using it skip cleanly when ../shared is absent."""
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is not available")
    return corpus
