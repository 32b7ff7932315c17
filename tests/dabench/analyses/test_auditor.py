from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.dabench.example import raw
from tracegrade.dabench import RunRows
from tracegrade.dabench.analyses._auditor import analyst_team, analyst_team_section, format_auditor_report
from tracegrade.dabench.reading._observe import TaskSignals


def test_analyst_team(example_report: dict[str, Any]) -> None:
    team = raw(example_report, "analyst-team")
    assert team["Tasks with verdicts"] == 3 and team["Mean agreement score"] == 1.0
    assert team["Meaningful disagreement"] == 0 and team["Coordinator overrides"] == 0
    assert team["Auditor triggers"] == 3  # task_2's verifier flagged twice, task_3's once
    assert team["Precision warning→failure"] == 0.5 and team["Recall failure→warning"] == 1.0


def test_auditor_report_of_the_example(example_out: Path) -> None:
    assert "| Precision warning→failure | 50.0% (1/2) |" in (example_out / "auditor_validation_report.md").read_text()


def signals(task: str, verifier: bool | None, critic: bool | None, flags: int, reviews: int) -> TaskSignals:
    return TaskSignals(task, verifier, critic, flags, reviews)


ROWS = (
    {"task_id": "t1", "final_answer_correct": 1, "coordinator_final_decision": "APPROVE_FINAL"},
    {"task_id": "t2", "final_answer_correct": 0, "coordinator_final_decision": "APPROVE_FINAL"},
    {"task_id": "t3", "final_answer_correct": 0, "critic_verification_passed": 1},
    {"task_id": "t4", "final_answer_correct": None, "coordinator_final_decision": "REPLAN"},
    {"task_id": "t5", "final_answer_correct": 1},
    {"task_id": "t6", "final_answer_correct": 0},
)
SIGNALS = {
    "t1": signals("t1", True, True, 0, 2),  # three verdicts, all pass, answer right
    "t2": signals("t2", True, None, 0, 1),  # verifier and coordinator pass a wrong answer
    "t4": signals("t4", True, None, 0, 1),  # the coordinator replans what the verifier passed
    "t5": signals("t5", None, None, 1, 1),  # an auditor warning, no verdict; the answer is right
    "t6": signals("t6", False, None, 1, 1),  # the verifier flags a wrong answer
}


@pytest.fixture
def team() -> Any:
    return analyst_team(RunRows("r", Path("r"), ROWS), SIGNALS)


def test_agreement_is_over_verdict_pairs_and_only_pass_fail_differences_count(team: Any) -> None:
    assert team.tasks_with_verdicts == 5  # t3 by its critic column alone; t5 gave no verdict
    assert team.mean_agreement == pytest.approx(2 / 3)  # t1 1, t2 1, t4 0; one verdict has no pair
    assert team.meaningful_disagreements == 1 and team.disagreement_types == {"coordinator_vs_verifier": 1}
    assert team.coordinator_overrides == 1


def test_verdicts_are_checked_against_ground_truth(team: Any) -> None:
    assert team.critical_scores == {"0": 2, "1": 1, "2": 1, "3": 0}  # t1 t6: 0; t3: 1; t2: 2 (t4 has no gold)
    assert team.verifier_disagreements == 1  # t2


def test_warning_precision_and_recall(team: Any) -> None:
    assert (team.triggers, team.warned_tasks, team.warned_failed) == (2, 2, 1)  # t5 warned but right, t6 warned
    assert (team.failed_tasks, team.failed_warned) == (2, 1)  # t2 passed review unwarned, t6 warned
    assert team.precision == 0.5 and team.recall == 0.5


def test_section_and_report_show_the_same_numbers(team: Any) -> None:
    by = {r["measure"]: r["value"] for r in analyst_team_section(team).rows}
    assert by["Mean agreement score"] == "0.667" and by["Disagreement types"] == "coordinator_vs_verifier 1"
    assert by["Critical disagreement 0-3"] == "0: 2, 1: 1, 2: 1, 3: 0"
    assert by["Recall failure→warning"] == "50.0% (1/2)"
    text = format_auditor_report("r", team)
    assert "| Tasks with verdicts | 5 |" in text and "- coordinator_vs_verifier: 1" in text
    assert "| 2 | 1 |" in text
    assert "1 failed task(s) passed review without a warning; 1 warned task(s) ended correct." in text


def test_a_run_without_verdicts_says_there_is_nothing_to_validate() -> None:
    team = analyst_team(RunRows("r", Path("r"), ({"task_id": "t1", "final_answer_correct": 1},)), {})
    assert team.tasks_with_verdicts == 0 and team.mean_agreement is None and team.precision is None
    assert analyst_team_section(team).empty == "no reviewer or coordinator verdicts in these traces"
    assert "nothing to validate" in format_auditor_report("r", team)
