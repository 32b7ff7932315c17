from __future__ import annotations

from tests.atif.agree_data import ROOT_LABELS, STEP_LABELS, report
from tests.render.html_checks import check_report
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.agreement._records import LabelIssue
from tracegrade.atif.agreement._report import agreement_rows, issue_rows, render_agreement
from tracegrade.render import MISSING

LEVEL = ["Spearman rho", "Kendall tau-b", "pass/fail share", "pass/fail kappa"]


def test_rows_list_every_measure_of_each_level_then_the_localisation() -> None:
    rows = agreement_rows(report())
    assert [row["value"] for row in rows if row["level"] == "localise"] == [0.5, 1.0, 1.0]
    assert [(row["level"], row["measure"]) for row in rows] == [
        *(("step", m) for m in [*LEVEL, "category share", "category kappa"]),
        *(("trajectory", m) for m in LEVEL),
        ("localise", "lowest=decisive"), ("localise", "within ±1 step"), ("localise", "within ±3 steps"),
    ]


def test_a_row_shows_its_interval_and_p_value() -> None:
    spearman = next(row for row in agreement_rows(report()) if row["measure"] == "Spearman rho")
    estimate = report().step.scores.spearman
    assert estimate.low is not None and estimate.high is not None and estimate.p_value is not None
    assert spearman["interval"] == f"{estimate.low:.3f}–{estimate.high:.3f}"
    assert spearman["note"] == f"p={estimate.p_value:.3g}" and spearman["n"] == 6


def test_an_undefined_measure_shows_a_dash_and_its_reason_never_a_number() -> None:
    rows = agreement_rows(report([Label(line=1, trajectory_id="A", step=1, score=3, failed=False)]))
    spearman = next(row for row in rows if row["measure"] == "Spearman rho")
    assert (spearman["value"], spearman["interval"], spearman["note"]) == (None, MISSING, "under 2 pairs")


def test_an_issue_without_a_measure_shows_a_dash() -> None:
    issues = [LabelIssue(line=3, target="A#9", reason="no_step"),
              LabelIssue(line=4, target="B", reason="x", measure="m")]
    assert issue_rows(issues) == [
        {"line": 3, "target": "A#9", "reason": "no_step", "measure": MISSING},
        {"line": 4, "target": "B", "reason": "x", "measure": "m"},
    ]


def test_the_page_holds_every_section_the_matrices_and_the_unmatched_labels() -> None:
    unmatched = Label(line=9, trajectory_id="C", failed=True)
    html = render_agreement(report([*STEP_LABELS, *ROOT_LABELS, unmatched]), generated_at="2026-01-02T03:04:05Z")
    for section in ("measures", "confusion", "localisation", "unmatched"):
        assert f'id="{section}"' in html
    assert "job job-1 · labels l.jsonl" in html and "2026-01-02T03:04:05Z" in html
    assert "Steps: failure category (rows: reviewers, columns: judge)" in html
    assert "b.json" in html and "no_trajectory" in html
    check_report(html)


def test_a_kappa_of_a_one_sided_judge_or_labelling_says_why() -> None:
    from tracegrade.atif.agreement._report import KAPPA_NOTE, kappa_note

    one_sided = report([Label(line=1, trajectory_id="A", step=1, failed=False),
                        Label(line=2, trajectory_id="A", step=2, failed=False)])
    rows = agreement_rows(one_sided)
    kappa = next(row for row in rows if row["level"] == "step" and row["measure"] == "pass/fail kappa")
    assert kappa["note"].startswith("one answer, ") and kappa["note"].endswith(": all passed")
    assert kappa_note(rows) == KAPPA_NOTE and "0 by construction" in render_agreement(one_sided, generated_at="t")
