"""What the comparisons share: lines cut and wrapped to 80 columns, the gate's lines, intervals, the folder written."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tracegrade.atif.output._comparison_output import fit, gate_lines, interval_text, write_comparison_folder
from tracegrade.errors import OutputError
from tracegrade.runs import read_manifest
from tracegrade.stats import GateVerdict


def test_a_long_line_is_cut_to_80_columns_with_an_ellipsis() -> None:
    assert fit("x" * 80) == "x" * 80
    assert fit("x" * 81) == "x" * 79 + "…"


def test_the_gate_reads_off_passed_or_failed_with_each_rule_wrapped_and_the_warnings_last() -> None:
    assert gate_lines(GateVerdict(exit_code=0, fired=[], checked=[])) == ["gate: off (exit 0)"]
    passed = GateVerdict(exit_code=0, fired=[], checked=["a", "b"], warnings=["few pairs"])
    assert gate_lines(passed, warnings=passed.warnings) == ["gate: passed (a, b): exit 0", "  warning: few pairs"]
    failed = GateVerdict(exit_code=1, fired=["word " * 30], checked=["a"])
    lines = gate_lines(failed)
    assert lines[0] == "gate: FAILED: exit 1" and len(lines) == 3
    assert lines[1].startswith("  word") and lines[2].startswith("    word") and all(len(x) <= 80 for x in lines)


def test_an_interval_shows_both_bounds_or_none() -> None:
    assert interval_text(0.5, 0.25, 0.75) == "0.500 [0.250, 0.750]"
    assert interval_text(0.5, -0.25, 0.75, signed=True) == "+0.500 [-0.250, +0.750]"
    assert interval_text(0.5, None, 0.75) == "0.500"


def test_the_folder_holds_the_document_the_page_and_a_manifest_with_the_gate(tmp_path: Path) -> None:
    gate = GateVerdict(exit_code=1, fired=["x"], checked=["x"])
    stamps: list[str] = []

    def render(stamp: str) -> str:
        stamps.append(stamp)
        return f"<p>{stamp}</p>"

    paths = write_comparison_folder(tmp_path / "out", kind="atif-compare", job_id="a..b", comparison=gate, gate=gate,
                                    render=render)
    assert orjson.loads(paths["comparison.json"].read_bytes()) == gate.model_dump(mode="json")
    assert paths["comparison.html"].read_text() == f"<p>{stamps[0]}</p>"
    manifest = read_manifest(tmp_path / "out")
    assert manifest["kind"] == "atif-compare" and manifest["job_id"] == "a..b"
    assert manifest["metadata"] == {"gate_exit_code": 1} and manifest["status"] == "completed"


def test_an_unwritable_folder_is_an_output_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    gate = GateVerdict(exit_code=0, fired=[], checked=[])
    with pytest.raises(OutputError):
        write_comparison_folder(tmp_path / "file" / "out", kind="atif-compare", job_id="a..b", comparison=gate,
                                gate=gate, render=lambda stamp: "")
