from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tracegrade.atif.importing._output import (
    ImportedFileReport,
    ImportResult,
    ImportWriter,
    input_files,
    slug,
    trajectory_report,
    unique,
)
from tracegrade.errors import InputError


def document(trajectory_id: str, steps: list[dict[str, Any]],
             subs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"schema_version": "ATIF-v1.7", "trajectory_id": trajectory_id,
                             "agent": {"name": trajectory_id, "version": "1"}, "steps": steps}
    if subs:
        found["subagent_trajectories"] = subs
    return found


STEP = {"step_id": 1, "source": "agent", "message": "m",
        "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {}}]}


def test_counts_cover_the_whole_tree() -> None:
    tree = document("root", [STEP, {**STEP, "step_id": 2}], [document("sub", [STEP])])
    report = trajectory_report(tree, "trajectories/root.json")
    assert (report.steps, report.tool_calls, report.subagents, report.agents) == (3, 3, 1, ["root", "sub"])


def write(out: Path, documents: list[tuple[str, str, dict[str, Any]]], files: list[ImportedFileReport],
          validate: bool = True) -> ImportResult:
    with ImportWriter(out, validate=validate) as writer:
        for name, source, found in documents:
            writer.add(name, source, found)
        return writer.finish("otel", files)


def test_validated_writes_refuse_an_invalid_document_naming_its_source(tmp_path: Path) -> None:
    bad = document("x", [{"step_id": 2, "source": "agent", "message": ""}])
    with pytest.raises(InputError, match=r"^log\.json \(sample 1\): does not convert to valid ATIF \(.*step_id"):
        write(tmp_path, [("a", "ok.json", document("a", [STEP])), ("x", "log.json (sample 1)", bad)], [])
    assert list(tmp_path.iterdir()) == []  # nothing half-written is left behind


def test_the_report_lists_files_and_trajectories(tmp_path: Path) -> None:
    files = [ImportedFileReport(path="in.json", formats=["otlp-json"], records=3, trajectories=["a"],
                                not_mapped={"x": 1})]
    result = write(tmp_path, [("a", "in.json", document("a", [STEP]))], files)
    saved = orjson.loads(result.report_path.read_bytes())
    assert saved["importer"] == "otel" and saved["files"][0]["not_mapped"] == {"x": 1}
    assert result.trajectories == (tmp_path / "trajectories" / "a.json",)


def test_names_are_safe_and_unique() -> None:
    taken: set[str] = set()
    assert slug("a b/c:d") == "a-b-c-d" and slug("///") == "trace"
    assert [unique("n", taken) for _ in range(3)] == ["n", "n-2", "n-3"]


def test_input_files_are_named_ones_and_a_folders_matching_ones_in_order(tmp_path: Path) -> None:
    for name in ("b/2.json", "b/1.jsonl", "b/a/0.json", "b/skip.txt", "named.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    found = input_files([tmp_path / "named.txt", tmp_path / "b"], (".json", ".jsonl"))
    assert found == [(tmp_path / "named.txt", False), (tmp_path / "b/1.jsonl", True), (tmp_path / "b/2.json", True),
                     (tmp_path / "b/a/0.json", True)]
    with pytest.raises(InputError, match="gone: no such file or directory"):
        input_files([tmp_path / "gone"], (".json",))
    assert input_files([Path("/dev/null")], ()) == [(Path("/dev/null"), False)]  # the reader refuses it by name
    with pytest.raises(InputError, match="null: no such file or directory"):
        input_files([Path("/dev/null")], (), regular=True)
