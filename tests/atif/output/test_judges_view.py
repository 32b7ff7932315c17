"""The judge comparison shown: 80-column lines, an escaped self-contained page, the folder written."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.atif.output.comparing import judged, trajectory
from tests.atif.output.test_judges import two_judges
from tracegrade.atif import ComparisonOptions
from tracegrade.atif.output import compare_judges, judges_lines, write_judges
from tracegrade.judge.testing import ScriptedJudgeServer


def test_lines_page_and_folder(tmp_path: Path) -> None:
    docs = {"<x>.json": trajectory("task <b>x</b> SCORE:0.8", "SCORE:0.45", "SCORE:0.3 HARSH"),
            "y.json": trajectory("task y SCORE:0.9", "SCORE:0.45")}  # 0.45: low for A only
    with ScriptedJudgeServer(two_judges) as server:
        a = judged(server, tmp_path / "a", docs, model="judge-a")
        b = judged(server, tmp_path / "b", docs, model="judge-b")
    outcome = compare_judges(a, b, ComparisonOptions(resamples=50), fail_on_disagreement=1.0)
    lines = judges_lines(outcome.comparison)
    assert all(len(line) <= 80 for line in lines) and lines[0].startswith("judges: A judge-a")
    assert "gate: FAILED: exit 1" in lines
    paths = write_judges(outcome, tmp_path / "out")
    page = paths["comparison.html"].read_text()
    assert "&lt;x&gt;.json" in page and "<x>.json" not in page
    document = orjson.loads(paths["comparison.json"].read_bytes())
    assert document["format"] == "tracegrade.atif.judge_comparison/1" and document["gate"]["exit_code"] == 1
    assert (tmp_path / "out" / "manifest.json").exists()
