from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade.dabench import Resampling, RunRows, compare_runs, paper_tables, render_latex, render_markdown
from tracegrade.dabench.report._paper import PaperTable


def test_paper_tables_of_the_example(example_out: Path) -> None:
    paper = (example_out / "paper_tables.md").read_text()
    assert "| final_score | 3 | 0.667 ± 0.577 | [0.000, 1.000] |" in paper
    assert "| timeout | 1 | 100.0% |" in paper
    assert r"0.667 $\pm$ 0.577" in (example_out / "paper_tables.tex").read_text()


ROWS = (
    {"task_id": "t1", "difficulty": "easy", "final_score": 1.0, "execution_success": 1, "task_type": "single_source",
     "analyst_score": 0.8, "specialist_participation": 1 / 3, "autonomy_score": 1.0, "outcome_status": "correct"},
    {"task_id": "t2", "difficulty": "hard", "final_score": 0.5, "execution_success": 1, "task_type": "multi_source",
     "analyst_score": 0.4, "autonomy_score": 0.5, "outcome_status": "partial", "root_cause": "wrong_join"},
    {"task_id": "t3", "difficulty": "hard", "final_score": 0.0, "execution_success": 0, "task_type": "multi_source",
     "outcome_status": "failed", "root_cause": "timeout"},
)
RUN = RunRows("run_1", Path("r"), ROWS)


@pytest.fixture
def tables() -> dict[int, PaperTable]:
    return {t.number: t for t in paper_tables(RUN, resampling=Resampling(resamples=200, level=0.9, seed=1))}


def test_main_results_name_their_interval(tables: dict[int, PaperTable]) -> None:
    main = tables[1]
    assert main.header == ("Metric", "n", "Mean ± std", "90% CI")
    assert main.note == "90% CI: percentile bootstrap of the mean (200 resamples, seed 1)."
    by = {row[0]: row for row in main.rows}
    assert by["final_score"][:3] == ("final_score", "3", "0.500 ± 0.500")
    assert by["answer_f1"] == ("answer_f1", "0", "—", "—")  # no value: dashes, not zeros


def test_difficulty_and_task_type_breakdowns(tables: dict[int, PaperTable]) -> None:
    assert tables[2].rows == (
        ("easy", "1", "100.0%", "100.0%", "1.000"),
        ("hard", "2", "50.0%", "0.0%", "0.250 ± 0.354"),  # sample std of 0.5 and 0: √0.125
    )
    assert tables[2].note == "Answer accuracy: final_score ≥ 0.8."
    assert tables[3].rows == (("multi_source", "2", "0.250 ± 0.354", "0.400"), ("single_source", "1", "1.000", "0.800"))


def test_participation_and_root_causes(tables: dict[int, PaperTable]) -> None:
    assert tables[4].rows == (("0.33", "1", "1.000", "1.000"), ("—", "2", "0.250", "0.500"))
    assert tables[5].rows == (("wrong_join", "1", "50.0%"), ("timeout", "1", "50.0%"))
    assert tables[5].note == "Failed or partial tasks (final_score < 0.8 or no answer): 2."
    assert 6 not in tables  # no baseline, no comparison table


def test_the_comparison_table_comes_with_a_baseline() -> None:
    better = RunRows("run_2", Path("r2"), tuple({**r, "final_score": 1.0} for r in ROWS))
    comparison = compare_runs(RUN, better, resampling=Resampling(resamples=100))
    table = {t.number: t for t in paper_tables(better, comparison)}[6]
    assert table.header[5] == "95% CI" and table.rows[0][:5] == ("final_score", "3", "0.500", "1.000", "+0.500")
    assert table.note.startswith("Baseline run_1, proposed run_2; paired by task_id; 0 tasks in one run only")


def test_markdown_fills_an_empty_table_with_dashes() -> None:
    text = render_markdown("r", [PaperTable(5, "Top root causes", ("Root cause", "Tasks"), (), "No failed task.")])
    assert text == (
        "# Paper tables: r\n\n## Table 5: Top root causes\n\n| Root cause | Tasks |\n|---|---|\n| — | — |\n\n"
        "No failed task.\n"
    )


def test_latex_escapes_what_tex_would_read_as_commands(tables: dict[int, PaperTable]) -> None:
    text = render_latex("run_1", list(tables.values()))
    assert text.startswith(r"% Paper tables: run\_1 (written by tracegrade dabench eval-v2; needs booktabs)")
    assert r"final\_score & 3 & 0.500 $\pm$ 0.500 &" in text
    assert r"Metric & n & Mean $\pm$ std & 90\% CI \\" in text
    assert r"\footnotesize Answer accuracy: final\_score $\geq$ 0.8." in text
    assert r"\begin{tabular}{lrrrr}" in text and text.count(r"\begin{table}[t]") == 5


def test_a_task_without_a_difficulty_is_unknown_as_in_the_report() -> None:
    rows = ({**ROWS[0], "difficulty": ""}, {**ROWS[1], "difficulty": None}, ROWS[2])
    run = RunRows("run_1", Path("r"), rows)
    tables = {t.number: t for t in paper_tables(run, resampling=Resampling(resamples=200, level=0.9, seed=1))}
    assert [row[:2] for row in tables[2].rows] == [("hard", "1"), ("unknown", "2")]
