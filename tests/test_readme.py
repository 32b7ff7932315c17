"""The README as a test: every ```bash block of README.md and of the docs' quick starts runs, in order.

Each document gets a fresh folder holding a copy of ``examples/`` (the README's commands run from the
repository root), one scripted judge server for the whole module (``JUDGE_URL`` and ``JUDGE_MODEL``, as the
README exports them) and a ``tracegrade`` / ``dabench`` on ``PATH`` that run this checkout's sources. A block
holding the line ``# readme-test: skip (REASON)`` is skipped with that reason (-rs lists it);
``# readme-test: requires MODULE`` skips it when that module is not installed. Every other block runs under
``bash -euo pipefail`` and must exit 0.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import tracegrade
from tracegrade.judge.testing import SCRIPTED_MODEL, ScriptedJudgeServer, scripted_rule

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = ("README.md", "docs/scripted-judge.md")
"""The documents whose shell blocks are run: the README and the docs' quick starts."""
BLOCK_TIMEOUT_S = 300

_FENCE = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)
_SKIP = re.compile(r"^# readme-test: skip \((.+)\)\s*$", re.MULTILINE)
_REQUIRES = re.compile(r"^# readme-test: requires ([\w.]+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    document: str
    line: int
    """1-based line of the opening fence."""
    text: str

    @property
    def name(self) -> str:
        return f"{self.document}:{self.line}"


def blocks(document: str) -> list[Block]:
    """The ```bash blocks of ``document``, in order."""
    text = (REPO / document).read_text(encoding="utf-8")
    return [Block(document, text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _FENCE.finditer(text)]


ALL = [block for document in DOCUMENTS for block in blocks(document)]


@pytest.fixture(scope="module")
def judge_url() -> Iterator[str]:
    with ScriptedJudgeServer(scripted_rule(), record_bodies=False) as server:
        yield f"{server.base_url}/v1"


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One fresh folder per document, each with a copy of examples/."""
    made = {}
    for document in DOCUMENTS:
        folder = tmp_path_factory.mktemp(Path(document).stem)
        shutil.copytree(REPO / "examples", folder / "examples")
        made[document] = folder
    return made


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory, judge_url: str) -> dict[str, str]:
    """The shell's environment: this checkout's commands first on PATH, the judge exported, caches kept apart."""
    bin_dir = tmp_path_factory.mktemp("bin")
    for command, entry in (("tracegrade", "main"), ("dabench", "dabench_main")):
        script = bin_dir / command
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "from tracegrade.cli import {entry}; '
                          f'{entry}()" "$@"\n')
        script.chmod(0o755)
    source = str(Path(tracegrade.__file__).resolve().parents[1])
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "MLFLOW_", "EVALHUB_", "JUDGE_"))}
    return {
        **keep,
        "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), keep.get("PATH", "")]),
        "PYTHONPATH": os.pathsep.join(filter(None, [source, keep.get("PYTHONPATH", "")])),
        "JUDGE_URL": judge_url,
        "JUDGE_MODEL": SCRIPTED_MODEL,
        "TRACEGRADE_CACHE_DIR": str(tmp_path_factory.mktemp("cache")),
        "HOME": str(tmp_path_factory.mktemp("home")),
        "COLUMNS": "80",
    }


@pytest.mark.parametrize("block", ALL, ids=[block.name for block in ALL])
def test_the_block_runs(block: Block, folders: dict[str, Path], environment: dict[str, str]) -> None:
    skip = _SKIP.search(block.text)
    if skip is not None:
        pytest.skip(f"{block.name}: {skip.group(1)}")
    required = _REQUIRES.search(block.text)
    if required is not None and importlib.util.find_spec(required.group(1)) is None:
        pytest.skip(f"{block.name}: needs {required.group(1)}, which is not installed")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block.text], cwd=folders[block.document],
                          env=environment, capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, (f"{block.name} exited {done.returncode}\n--- block\n{block.text}"
                                  f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}")


def test_every_document_has_blocks_and_every_mark_is_well_formed() -> None:
    for document in DOCUMENTS:
        assert blocks(document), f"{document} has no ```bash block"
    for block in ALL:
        for line in block.text.splitlines():
            if "readme-test:" in line:
                assert _SKIP.fullmatch(line) or _REQUIRES.fullmatch(line), f"{block.name}: malformed mark {line!r}"


def test_no_example_reads_a_folder_an_earlier_example_writes_into() -> None:
    """Outputs go under results/ or imported/; inputs come from examples/ or an earlier output, never its parent."""
    for block in ALL:
        if _SKIP.search(block.text):
            continue
        for output in re.findall(r"(?:-o|--output)\s+(\S+)", block.text):
            assert output.startswith(("results/", "imported/", "scripted-run")), f"{block.name}: writes {output}"
        for folder in ("results/ ", "imported/ ", "results\n", "imported\n"):
            assert f" {folder}" not in block.text, f"{block.name}: reads the whole {folder.strip()} folder"
