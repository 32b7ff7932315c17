from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracegrade.atif.reading._refs import RefProblem, resolve_ref


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path.resolve() / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "child.json").write_text("{}")
    (folder / "parent.json").write_text("{}")
    return folder


def code(result: Path | RefProblem) -> str:
    assert isinstance(result, RefProblem), result
    return result.code


def test_a_reference_is_read_relative_to_the_file_that_makes_it(root: Path) -> None:
    assert resolve_ref("sub/child.json", root / "parent.json", root) == root / "sub" / "child.json"
    assert resolve_ref("../parent.json", root / "sub" / "child.json", root) == root / "parent.json"


def test_an_absolute_reference_inside_the_root_is_followed(root: Path) -> None:
    assert resolve_ref(str(root / "sub" / "child.json"), root / "parent.json", root) == root / "sub" / "child.json"


@pytest.mark.parametrize("ref", ["https://host/t.json", "s3://bucket/t.json", "file:///etc/passwd", "data:x"])
def test_urls_are_never_followed(root: Path, ref: str) -> None:
    result = resolve_ref(ref, root / "parent.json", root)
    assert code(result) == "url_ref" and "only files inside the input root" in result.message  # type: ignore[union-attr]


def test_a_windows_drive_path_is_a_path_not_a_url(root: Path) -> None:
    assert code(resolve_ref("C://data/t.json", root / "parent.json", root)) == "unresolvable_ref"


@pytest.mark.parametrize("ref", ["../outside.json", "/etc/passwd", "sub/../../outside.json"])
def test_references_out_of_the_root_are_refused_before_any_file_is_touched(root: Path, ref: str) -> None:
    (root.parent / "outside.json").write_text("{}")
    result = resolve_ref(ref, root / "parent.json", root)
    assert code(result) == "ref_outside_root" and "points outside" in result.message  # type: ignore[union-attr]


def test_a_link_out_of_the_root_is_refused(root: Path) -> None:
    (root.parent / "secret.json").write_text("{}")
    os.symlink(root.parent / "secret.json", root / "link.json")
    result = resolve_ref("link.json", root / "parent.json", root)
    assert code(result) == "ref_outside_root" and "resolves outside" in result.message  # type: ignore[union-attr]


def test_missing_files_folders_and_link_loops_are_named(root: Path) -> None:
    os.symlink(root / "loop2.json", root / "loop1.json")
    os.symlink(root / "loop1.json", root / "loop2.json")
    assert code(resolve_ref("none.json", root / "parent.json", root)) == "unresolvable_ref"
    assert code(resolve_ref("sub", root / "parent.json", root)) == "unresolvable_ref"
    assert code(resolve_ref("loop1.json", root / "parent.json", root)) == "symlink_loop"
