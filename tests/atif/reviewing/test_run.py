from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tracegrade.atif.reviewing._run import read_review_run
from tracegrade.errors import InputError


def test_a_finished_run_is_read_with_its_manifest(examples_run: Path) -> None:
    found = read_review_run(examples_run)
    assert found.manifest["kind"] == "atif-judge" and "report.html" in found.manifest["files"]
    assert len(found.results.nodes) == 4


def test_a_changed_file_a_missing_manifest_or_no_folder_is_refused(examples_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(examples_run, copy)
    (copy / "summary.json").write_text("{}")
    with pytest.raises(InputError, match=r"summary\.json"):
        read_review_run(copy)
    (copy / "manifest.json").unlink()
    with pytest.raises(InputError, match="not a complete run folder"):
        read_review_run(copy)
    with pytest.raises(InputError, match="not a run folder"):
        read_review_run(copy / "evaluation_results.json")
