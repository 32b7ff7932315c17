from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.atif.output.test_compare import runs
from tests.conftest import browse
from tests.render.html_checks import check_report
from tracegrade.atif import ComparisonOptions, compare_runs
from tracegrade.atif.output import comparison_lines, write_comparison
from tracegrade.runs import read_manifest
from tracegrade.stats import GateOptions

__all__ = ["runs"]


def test_the_summary_fits_80_columns_and_names_the_gate(runs: dict[str, Path]) -> None:
    gate = GateOptions(fail_on_regression=True, fail_on_new_failures=True)
    options = ComparisonOptions(allow_different=("judge.model",))
    lines = comparison_lines(compare_runs(runs["other_model"], runs["worse"], options, gate).comparison)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert lines[1].startswith("ALLOWED DIFFERENCE judge.model differs: baseline 'another-judge'")
    assert "gate: FAILED: exit 1" in lines
    text = "\n".join(lines)
    assert "fail_on_new_failures: 1 newly failing (a.json)" in text and "delta -0.2500" in text
    assert "biggest regressions:" in text and "  -0.3000  a.json" in lines


def test_the_summary_of_an_unchanged_run(runs: dict[str, Path]) -> None:
    lines = comparison_lines(compare_runs(runs["base"], runs["base"]).comparison)
    assert lines[-1] == "gate: off (exit 0)" and "biggest regressions:" not in lines


def test_the_report_opens_in_a_browser_with_both_verdicts_side_by_side(runs: dict[str, Path], tmp_path: Path) -> None:
    options = ComparisonOptions(allow_different=("judge.model",))
    outcome = compare_runs(runs["other_model"], runs["worse"], options, GateOptions(fail_on_regression=True))
    files = write_comparison(outcome, tmp_path / "cmp")
    assert sorted(read_manifest(tmp_path / "cmp")["files"]) == ["comparison.html", "comparison.json"]
    dom = browse(files["comparison.html"])
    allowed = dom.index('id="allowed"')
    assert allowed < dom.index('id="pair-table"') and "judge.model differs" in dom[allowed:allowed + 400]
    rows = re.findall(r'<a class="open-pair" href="#pair-(\d+)">([^<]+)</a>', dom)
    assert rows == [("0", "a.json"), ("1", "b.json")]  # biggest regression first
    detail = dom[dom.index('id="pair-0"'):dom.index('id="pair-1"')]
    assert "Baseline: step and verdict" in detail and "Candidate: step and verdict" in detail
    assert detail.count("SCORE:0.6") == 1 and detail.count("SCORE:0.0") == 1  # each side's own step
    assert "exit 1" in dom and "fail_on_regression" in dom
    check_report(files["comparison.html"].read_text())


def test_comparison_json_follows_its_documented_schema(runs: dict[str, Path], tmp_path: Path) -> None:
    import jsonschema
    import orjson

    schema = orjson.loads((Path(__file__).resolve().parents[3] / "docs/schemas/comparison.schema.json").read_bytes())
    for baseline, candidate in (("base", "failed"), ("base", "renamed"), ("sub_base", "sub_cand")):
        files = write_comparison(compare_runs(runs[baseline], runs[candidate]), tmp_path / candidate)
        jsonschema.validate(orjson.loads(files["comparison.json"].read_bytes()), schema)


def test_each_step_delta_is_candidate_minus_baseline(runs: dict[str, Path]) -> None:
    from tracegrade.atif.output._comparison_view import render_comparison

    page = render_comparison(compare_runs(runs["base"], runs["worse"]), generated_at="t")
    detail = page[page.index('id="pair-0"'):page.index('id="pair-1"')]  # a.json: its agent step 0.6 -> 0.0
    deltas = re.findall(r'<td class="num">([+-]\d\.\d{3}|—)</td></tr>', detail)
    assert "-0.600" in deltas and "+0.600" not in deltas
    assert re.findall(r'<td class="num[^"]*" data-sort="(-?[\d.]+)">-0.300</td>', page)  # the pair's own delta


def _replicated(source: Path, target: Path, copies: int) -> Path:
    """A run whose roots are ``copies`` renamed copies of ``source``'s (with its manifest)."""
    import orjson

    from tracegrade.runs import JobStatus, RunFolder

    document = orjson.loads((source / "evaluation_results.json").read_bytes())

    def renamed(node: dict[str, Any], prefix: str) -> dict[str, Any]:
        parent = node["parent_id"]
        return {**node, "node_id": prefix + node["node_id"], "root_id": prefix + node["root_id"],
                "parent_id": None if parent is None else prefix + parent,
                "children": [prefix + child for child in node["children"]], "trajectory_id": None, "session_id": None}

    nodes = [renamed(node, f"c{copy:03d}/") for copy in range(copies) for node in document["nodes"]]
    run = RunFolder(target, kind="atif-judge", job_id=document["job_id"])
    run.write_bytes("evaluation_results.json", orjson.dumps({**document, "nodes": nodes}))
    run.finish(JobStatus.COMPLETED, {"atif_complete": True})
    return target


def test_pairs_beyond_the_detailed_ones_link_nowhere_and_every_link_lands(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    from tracegrade.atif.output._comparison_view import render_comparison

    outcome = compare_runs(_replicated(runs["base"], tmp_path / "base", 200),
                           _replicated(runs["worse"], tmp_path / "worse", 200))
    page = render_comparison(outcome, generated_at="t")
    pairs = len(outcome.comparison.pairs)
    note = re.search(r"The first (\d+) pairs", page)
    assert pairs == 400 and note is not None and 0 < int(note.group(1)) < pairs
    links = {int(n) for n in re.findall(r'href="#pair-(\d+)"', page)}
    targets = {int(n) for n in re.findall(r'id="pair-(\d+)"', page)}
    assert links == targets == set(range(int(note.group(1))))  # the first pairs link, each to its details
    check_report(page)


def test_long_names_are_wrapped_between_words_never_cut(runs: dict[str, Path]) -> None:
    c = compare_runs(runs["base"], runs["worse"]).comparison
    long_base, long_cand = "nightly-2026-11-30-" + "b" * 30, "nightly-2026-12-01-" + "c" * 30
    c = c.model_copy(update={"baseline": c.baseline.model_copy(update={"job_id": long_base}),
                             "candidate": c.candidate.model_copy(update={"job_id": long_cand})})
    lines = comparison_lines(c)
    assert all(len(line) <= 80 for line in lines)
    text = " ".join(line.strip() for line in lines)
    assert f"baseline {long_base} vs candidate {long_cand}" in text  # before: the candidate's id cut with "…"
    assert "…" not in text


def test_markup_in_the_trajectories_is_shown_as_text_in_the_comparison(tmp_path: Path) -> None:
    from tests.atif.output.comparing import judged, trajectory
    from tests.atif.scripted import marker_rule
    from tests.render.html_checks import PLANTED
    from tracegrade.atif.output._comparison_view import render_comparison
    from tracegrade.judge.testing import ScriptedJudgeServer

    docs = {"a.json": trajectory(f"task a {PLANTED} SCORE:0.8", f"{PLANTED} SCORE:0.6")}
    with ScriptedJudgeServer(marker_rule) as server:
        base, cand = judged(server, tmp_path / "b", docs), judged(server, tmp_path / "c", docs)
    page = render_comparison(compare_runs(base, cand), generated_at="t")
    assert "&lt;b class=planted&gt;x&lt;/b&gt;" in page
    check_report(page)
