"""Docs that name a prompt version or a file format's version name the one the code has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracegrade.atif.asking._local_verdict import LOCAL_VERDICT_VERSION
from tracegrade.atif.asking._prompts import PROMPT_VERSION
from tracegrade.atif.localising._prompts import LOCALISE_PROMPT_VERSION
from tracegrade.suites.reading._comparisons import CHECK_PROMPT_VERSION

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md"), *(REPO / "docs" / "schemas").glob("*.json"),
                    *(REPO / "examples").rglob("README.md")])
HISTORY = {"performance.md"}
"""Records of past measurements, which name the versions they were measured with."""

PROMPTS = {version.rsplit("-v", 1)[0]: version
           for version in (PROMPT_VERSION, LOCALISE_PROMPT_VERSION, CHECK_PROMPT_VERSION, LOCAL_VERDICT_VERSION)}
_PROMPT = re.compile(r"\b(" + "|".join(map(re.escape, PROMPTS)) + r")-v\d+\b")
_FORMAT = re.compile(r"\btracegrade[\w.-]*/\d+\b")


def _code_formats() -> set[str]:
    found: set[str] = set()
    for path in (REPO / "src" / "tracegrade").rglob("*.py"):
        found.update(_FORMAT.findall(path.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("document", [d for d in DOCUMENTS if d.name not in HISTORY],
                         ids=lambda d: str(d.relative_to(REPO)))
def test_named_versions_are_the_codes(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    stale = [m.group(0) for m in _PROMPT.finditer(text) if m.group(0) != PROMPTS[m.group(1)]]
    assert not stale, f"{document.name} names {stale}; the code has {sorted(PROMPTS.values())}"
    formats = _code_formats()
    unknown = sorted({f for f in _FORMAT.findall(text) if f not in formats})
    assert not unknown, f"{document.name} names formats the code does not write: {unknown}"
