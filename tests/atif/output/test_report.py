from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from tests.atif.helpers import recorded_parameters
from tests.atif.scripted import trajectory, write
from tests.conftest import browse
from tests.render.html_checks import check_report
from tracegrade.atif import EvaluationResults, JobContext, parse_parameters, score_paths
from tracegrade.atif.asking._content import StepContent, ToolCallContent
from tracegrade.atif.output._report import render_report
from tracegrade.atif.scoring._records import CategorizationStatus, NodeResult, NodeStatusCode, RunSummary, StepResult
from tracegrade.atif.scoring._results import InputRecord
from tracegrade.atif.scoring._spool import ListedNodes
from tracegrade.judge import Judge, JudgeSettings
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.runs import JobStatus

SECTIONS = ("overview", "distributions", "lowest", "categories", "inputs", "run", "steps")
HOSTILE = "<script>alert('x')</script>"


def _step(index: int, status: str, **values: Any) -> StepResult:
    return StepResult(index=index, segment=0, step_id=index, source="agent", status=status, **values)


def _node(node_id: str, steps: list[StepResult], **values: Any) -> NodeResult:
    defaults: dict[str, Any] = {
        "parent_id": None,
        "root_id": node_id,
        "source_path": f"/in/{node_id}",
        "location": "",
        "trajectory_id": None,
        "session_id": None,
        "agent": "coder",
        "depth": 0,
        "status": NodeStatusCode.SCORED,
        "complete": True,
        "own_score": None,
        "aggregate": None,
        "passed": None,
        "step_count": 0,
        "subtree_step_count": 0,
        "total_steps": len(steps),
    }
    return NodeResult(node_id=node_id, steps=steps, **(defaults | values))


def sample_results() -> EvaluationResults:
    """Two roots: one with a scored, a low (categorised), a copied and an unrun step; one refused subagent."""
    seen = StepContent(
        message=HOSTILE,
        reasoning="x" * 900,
        tool_calls=[ToolCallContent(function_name="bash", tool_call_id="c1", arguments='{\n  "cmd": "ls"\n}')],
    )
    steps = [
        _step(
            1,
            "scored",
            score=0.9,
            criterion_scores={"quality": 0.9},
            rationale="fine",
            omitted_history=0,
            content=StepContent(message="look at the repo"),
        ),
        _step(
            2,
            "scored",
            score=0.0,
            criterion_scores={"quality": 0.0},
            rationale="deleted the repo",
            omitted_history=3,
            failure_candidate=True,
            category="policy_boundary_violation",
            categorization_status=CategorizationStatus.CATEGORIZED,
            content=seen,
        ),
        _step(3, "copied_context", content=StepContent(message="replayed")),
        _step(4, "not_run"),
    ]
    good = _node(
        "a.json",
        steps,
        own_score=0.45,
        aggregate=0.45,
        passed=False,
        step_count=2,
        subtree_step_count=2,
        children=["a.json::sub.json"],
    )
    refused = _node(
        "a.json::sub.json",
        [],
        parent_id="a.json",
        root_id="a.json",
        depth=1,
        status=NodeStatusCode.INVALID,
        complete=False,
        error_code="ref_outside_root",
    )
    failed = _node(
        "b.json",
        [_step(1, "failed", error_code="invalid_json")],
        status=NodeStatusCode.FAILED,
        complete=False,
        error_code="invalid_json",
    )
    summary = RunSummary(
        atif_overall_score=0.45,
        atif_trajectory_count=1,
        atif_failure_categorization_rate=None,
        overall_score=0.45,
        num_examples_evaluated=1,
        atif_complete=False,
        subagent_aggregation="flat",
        job_status=JobStatus.FAILED,
        failure_reason="fail_fast: node b.json failed (invalid_json)",
        counts={"roots": 2, "failure_candidates": 1},
        categories={"policy_boundary_violation": 1},
    )
    return EvaluationResults(
        job_id="job-7",
        created_at="2026-11-30T12:00:00+00:00",
        parameters=recorded_parameters(),
        provenance={"judge": {"model": "judge-x", "temperature": 0.0, "seed": None, "api_key": "sk-secret"},
                    "prompt_version": "p-1"},
        summary=summary,
        nodes=[good, refused, failed],
        inputs=[InputRecord(path="/in/link.json", location="", status="skipped", code="symlink_outside_input")],
    )


@pytest.fixture(scope="module")
def html() -> str:
    return render_report(sample_results())


def test_no_cell_shows_a_record_none_or_unescaped_markup_and_every_link_lands(html: str) -> None:
    check_report(html, planted=(HOSTILE,))


def test_step_content_from_the_trajectory_stays_text(html: str) -> None:
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html


def test_every_section_is_present_and_linked(html: str) -> None:
    for section in SECTIONS:
        assert f'<section id="{section}">' in html and f'href="#{section}"' in html


def test_missing_numbers_show_a_dash_never_zero(html: str) -> None:
    card = re.search(r'categorisation rate</div>\s*<div class="value">([^<]*)<', html)
    assert card is not None and card.group(1) == "—"
    unrun = html.split('data-status="not_run"')[1].split("</article>")[0]
    assert '<span class="step-score">—</span>' in unrun and "0.000" not in unrun
    assert '<span class="step-score">0.000</span>' in html  # a genuine 0.0 is a score


def test_copied_and_unscored_steps_are_labelled(html: str) -> None:
    assert "Copied context: a replay of earlier context, kept but not scored" in html
    assert "Not scored: never sent to the judge" in html
    assert "Not scored: the judge gave no usable answer" in html and "invalid_json" in html


def test_verdict_sits_beside_what_the_judge_saw(html: str) -> None:
    low = html.split('data-category="policy_boundary_violation"')[1].split("</article>")[0]
    for shown in ("bash", "&#34;cmd&#34;: &#34;ls&#34;", "deleted the repo", "policy_boundary_violation", ">3 earlier"):
        assert shown in low, shown
    preview = low.split('<details class="long">')[1].split("</summary>")[0]  # the 900-character reasoning
    assert "x" * 600 + "…" in preview and "x" * 601 not in preview and "x" * 900 in low


def test_header_shows_status_reason_provenance_and_refusals(html: str) -> None:
    for shown in (
        "fail_fast: node b.json failed (invalid_json)",
        "judge-x",
        "p-1",
        "validity proxy",
        "symlink_outside_input",
        "ref_outside_root",
        'href="#node-a.2ejson"',
    ):
        assert shown in html, shown
    assert "sk-secret" not in html and "(withheld)" in html


def test_filters_offer_the_statuses_and_categories_present(html: str) -> None:
    options = re.findall(r'<option value="([a-z_]+)">', html)
    assert options == ["copied_context", "failed", "not_run", "scored", "not_a_candidate", "policy_boundary_violation"]


def test_scored_run_records_what_the_judge_saw(tmp_path: Path) -> None:
    write(tmp_path / "in/p.json", trajectory("SCORE:0.8", "SCORE:0.3 <b>bold</b>"))
    rubric = "criteria:\n  - name: quality\n    description: Good step\n    weight: 1\n"
    options, criteria = parse_parameters({"scoring_mode": "custom", "custom_rubric": rubric})
    from tests.atif.scripted import marker_rule

    async def main() -> EvaluationResults:
        with ScriptedJudgeServer(marker_rule) as server:
            async with Judge(JudgeSettings(base_url=server.base_url, model="scripted")) as judge:
                return await score_paths([tmp_path / "in"], options, criteria, judge, JobContext("j"))

    results = asyncio.run(main())
    step = results.nodes[0].steps[1]
    assert step.content == StepContent(message="SCORE:0.3 <b>bold</b>") and step.score == pytest.approx(0.3)
    assert "SCORE:0.3 &lt;b&gt;bold&lt;/b&gt;" in render_report(results)


CHOOSE_CATEGORY = """<script>
var select = document.getElementById("step-category");
select.value = "policy_boundary_violation";
select.dispatchEvent(new Event("change"));
</script></body>"""


@pytest.mark.slow
def test_report_renders_in_headless_chromium_without_console_errors(html: str, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    dom = browse(page)
    for section in SECTIONS:
        assert f'<section id="{section}">' in dom
    assert "5 of 5 steps shown" in dom  # the filter script ran over every step
    assert "<script>alert(" not in dom and dom.count('<figure class="histogram">') == 2


@pytest.mark.slow
def test_category_filter_hides_other_steps_in_chromium(html: str, tmp_path: Path) -> None:
    page = tmp_path / "filtered.html"
    page.write_text(html.replace("</body>", CHOOSE_CATEGORY), encoding="utf-8")
    dom = browse(page)
    assert "1 of 5 steps shown" in dom
    shown = re.findall(r'<article class="step[^"]*" data-status="(\w+)" data-category="(\w+)">', dom)
    assert shown == [("scored", "policy_boundary_violation")]
    assert re.search(r'<details class="node" id="node-b.2ejson"[^>]* hidden=""', dom)


def _with_step_content(content: StepContent) -> EvaluationResults:
    results = sample_results()
    node = results.nodes[0]
    steps = [node.steps[0].model_copy(update={"content": content}), *node.steps[1:]]
    nodes = ListedNodes([node.model_copy(update={"steps": steps}), *results.nodes[1:]])
    return results.model_copy(update={"nodes": nodes})


def test_multi_line_tool_arguments_show_their_real_lines_and_an_empty_observation_says_so() -> None:
    from tracegrade.atif.asking._content import ObservationContent

    call = ToolCallContent(function_name="bash", tool_call_id="c9",
                           arguments='{\n  "cmd": "cat <<EOF\\nline one\\nline two\\nEOF",\n  "timeout": 30\n}')
    page = render_report(_with_step_content(StepContent(tool_calls=[call], observations=[
        ObservationContent(content="", source_call_id="c9")])))
    assert '<pre class="text">cmd:\n  cat &lt;&lt;EOF\n  line one\n  line two\n  EOF\ntimeout: 30</pre>' in page
    assert "(empty: the tool returned nothing)" in page
    assert '<pre class="text">{\n  &#34;cmd&#34;: &#34;ls&#34;\n}</pre>' in page  # one-line strings: as recorded


def test_the_lowest_scoring_nodes_start_open() -> None:
    results = sample_results()
    scored = [results.nodes[0].model_copy(update={"node_id": f"n{i}.json", "own_score": score})
              for i, score in enumerate([0.9, 0.1, 0.5, 0.3, 0.7])]
    page = render_report(results.model_copy(update={"nodes": ListedNodes(scored)}))
    opened = re.findall(r'<details class="node" id="node-(n\d)[^"]*" open', page)
    assert sorted(opened) == ["n1", "n2", "n3"]


def test_the_options_the_local_judge_fixes_are_marked_in_the_run_parameters() -> None:
    from tracegrade.judge import LOCAL_MODEL_ALIAS

    results = sample_results()
    local = results.model_copy(update={"provenance": {"judge": {"model": LOCAL_MODEL_ALIAS, "max_tokens": 512}}})
    assert "(fixed by the local judge)" not in render_report(results)
    page = render_report(local)
    assert re.search(r"<dt>judge_max_tokens</dt><dd>\d+ \(fixed by the local judge\)</dd>", page)
    assert "<dt>failure_threshold</dt><dd>0.5</dd>" in page


def test_sections_kept_while_scoring_are_the_sections_the_macros_rendered_from_the_records() -> None:
    """A job's kept sections are the text the former Jinja2 macros rendered (tests/atif/output/test_step_list.py)."""
    from tracegrade.atif.output._step_list import KeptSections

    from .former_step_list import former_section

    nodes = sample_results().nodes
    sections = KeptSections()
    sections.add(0, nodes)
    kept = list(sections.texts())
    assert kept == [former_section(node) for node in nodes]
    assert any("tool call" in text for text in kept) and any("<table class=\"data crit\">" in text for text in kept)


def _status_card(page: str) -> tuple[str, str]:
    found = re.search(r'<div class="card( \w+)?">\s*<div class="label">job status</div>\s*<div class="value">([^<]*)<',
                      page)
    assert found is not None
    return (found.group(1) or "").strip(), found.group(2)


def test_a_completed_job_whose_root_failed_is_not_shown_as_a_success() -> None:
    results = sample_results()
    summary = results.summary.model_copy(update={"job_status": JobStatus.COMPLETED, "failure_reason": None,
                                                 "counts": {"roots": 2, "roots_failed": 1}})
    kind, value = _status_card(render_report(results.model_copy(update={"summary": summary})))
    assert (kind, value) == ("bad", "completed, 1 of 2 roots failed")  # before: a green "completed"
    whole = summary.model_copy(update={"counts": {"roots": 2}})
    assert _status_card(render_report(results.model_copy(update={"summary": whole}))) == ("good", "completed")
