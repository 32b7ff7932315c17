"""Analyst team summary and ``auditor_validation_report.md``: do the reviewers agree and are they right.

Per task the process verdicts are: the critic's (last critic verdict), the verifier's (last verifier
step) and the coordinator's (APPROVE_FINAL or not). Ground truth is ``final_answer_correct``.
Agreement score: agreeing verdict pairs over pairs (two or more verdicts needed). A disagreement is
*meaningful* only when two verdicts differ on pass/fail; different confidences alone never count.
Critical disagreement score (0–3): verdicts that contradict ground truth. A reviewer *warning* is a
reviewer step that flagged a problem; precision (warning→failure) is the share of warned tasks that
did fail, recall (failure→warning) the share of failed tasks that were warned.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from itertools import combinations
from statistics import fmean

from pydantic import BaseModel

from tracegrade.dabench.analyses._overview import MEASURE_COLUMNS, value_row
from tracegrade.dabench.analyses._params import Mode
from tracegrade.dabench.analyses._sections import Section, pct
from tracegrade.dabench.reading._observe import TaskSignals
from tracegrade.dabench.tables._evaluated import Row, RunRows

__all__ = ["AnalystTeam", "analyst_team", "analyst_team_section", "format_auditor_report"]


class AnalystTeam(BaseModel):
    """Agreement among the reviewers and their precision against ground truth."""

    tasks_with_verdicts: int
    mean_agreement: float | None
    meaningful_disagreements: int
    disagreement_types: dict[str, int]
    coordinator_overrides: int
    """The coordinator's final decision contradicts the last verifier verdict."""
    verifier_disagreements: int
    """The last verifier verdict contradicts ground truth."""
    critical_scores: dict[str, int]
    """Critical disagreement score 0..3 → tasks (tasks with gold and a verdict)."""
    triggers: int
    """Reviewer steps that flagged a problem."""
    warned_tasks: int
    warned_failed: int
    failed_tasks: int
    failed_warned: int
    precision: float | None
    recall: float | None


def _verdicts(row: Row, signals: TaskSignals | None) -> dict[str, bool]:
    out: dict[str, bool] = {}
    critic = signals.critic_verdict if signals is not None else None
    if critic is None and row.get("critic_verification_passed") is not None:
        critic = row.get("critic_verification_passed") == 1
    if critic is not None:
        out["critic"] = critic
    if signals is not None and signals.verifier_verdict is not None:
        out["verifier"] = signals.verifier_verdict
    decision = row.get("coordinator_final_decision")
    if decision:
        out["coordinator"] = str(decision).upper() == "APPROVE_FINAL"
    return out


def analyst_team(run: RunRows, signals: Mapping[str, TaskSignals]) -> AnalystTeam:
    """Agreement, overrides, critical disagreement and reviewer precision/recall over a run."""
    agreements: list[float] = []
    types: Counter[str] = Counter()
    critical: Counter[str] = Counter()
    overrides = verifier_wrong = triggers = warned = warned_failed = failed = failed_warned = tasks = 0
    for row in run.rows:
        sig = signals.get(str(row.get("task_id")))
        verdicts = _verdicts(row, sig)
        truth = row.get("final_answer_correct")
        flagged = sig is not None and sig.review_flags > 0
        triggers += sig.review_flags if sig is not None else 0
        if verdicts:
            tasks += 1
        pairs = list(combinations(sorted(verdicts), 2))
        if pairs:
            agreements.append(sum(verdicts[a] == verdicts[b] for a, b in pairs) / len(pairs))
            differing = [f"{a}_vs_{b}" for a, b in pairs if verdicts[a] != verdicts[b]]
            types.update(differing)
        if "verifier" in verdicts and "coordinator" in verdicts and verdicts["verifier"] != verdicts["coordinator"]:
            overrides += 1
        if truth is not None and verdicts:
            critical[str(sum(v != (truth == 1) for v in verdicts.values()))] += 1
            verifier_wrong += "verifier" in verdicts and verdicts["verifier"] != (truth == 1)
        if truth is not None and sig is not None and sig.review_steps:
            warned += flagged
            warned_failed += flagged and truth == 0
            failed += truth == 0
            failed_warned += truth == 0 and flagged
    meaningful = sum(1 for _ in agreements if _ < 1)
    return AnalystTeam(
        tasks_with_verdicts=tasks,
        mean_agreement=fmean(agreements) if agreements else None,
        meaningful_disagreements=meaningful,
        disagreement_types=dict(sorted(types.items())),
        coordinator_overrides=overrides,
        verifier_disagreements=verifier_wrong,
        critical_scores={k: critical[k] for k in ("0", "1", "2", "3")},
        triggers=triggers,
        warned_tasks=warned,
        warned_failed=warned_failed,
        failed_tasks=failed,
        failed_warned=failed_warned,
        precision=warned_failed / warned if warned else None,
        recall=failed_warned / failed if failed else None,
    )


def analyst_team_section(team: AnalystTeam) -> Section:
    """The analyst team summary of the verbose and research reports."""
    section = Section(id="analyst-team", title="Analyst team summary", mode=Mode.VERBOSE, columns=MEASURE_COLUMNS)
    if team.tasks_with_verdicts == 0:
        section.empty = "no reviewer or coordinator verdicts in these traces"
        return section
    types = ", ".join(f"{k} {v}" for k, v in team.disagreement_types.items()) or "none"
    scores = ", ".join(f"{k}: {v}" for k, v in team.critical_scores.items())
    mean = team.mean_agreement
    section.rows = [
        value_row("Tasks with verdicts", str(team.tasks_with_verdicts), team.tasks_with_verdicts),
        value_row("Mean agreement score", "— (one verdict per task)" if mean is None else f"{mean:.3f}", mean),
        value_row("Meaningful disagreement", f"{team.meaningful_disagreements} tasks", team.meaningful_disagreements),
        value_row("Disagreement types", types, None),
        value_row("Coordinator overrides", str(team.coordinator_overrides), team.coordinator_overrides),
        value_row("Verifier vs ground truth", f"{team.verifier_disagreements} disagree", team.verifier_disagreements),
        value_row("Critical disagreement 0-3", scores, None),
        value_row("Auditor triggers", str(team.triggers), team.triggers),
        value_row("Precision warning→failure", f"{pct(team.precision)} ({team.warned_failed}/{team.warned_tasks})",
                  team.precision),
        value_row("Recall failure→warning", f"{pct(team.recall)} ({team.failed_warned}/{team.failed_tasks})",
                  team.recall),
    ]
    section.notes = ["Disagreement counts pass/fail verdicts only; confidence differences alone are not disagreement."]
    return section


def format_auditor_report(run_id: str, team: AnalystTeam) -> str:
    """``auditor_validation_report.md``: reviewer effectiveness and failure prevention."""
    lines = [f"# Auditor validation: {run_id}", ""]
    if team.tasks_with_verdicts == 0:
        lines += [
            "No reviewer (verifier, critic, auditor) or coordinator verdicts in these traces: nothing to validate.",
            "The rich multi-agent trace extension records them.",
        ]
        return "\n".join(lines) + "\n"
    lines += [
        "Process verdicts (critic, verifier, coordinator approval) checked against ground truth "
        "(final_score ≥ threshold).",
        "",
        "| Measure | Value |",
        "|---|---|",
        f"| Tasks with verdicts | {team.tasks_with_verdicts} |",
        f"| Mean agreement score | {'—' if team.mean_agreement is None else f'{team.mean_agreement:.3f}'} |",
        f"| Tasks with meaningful disagreement | {team.meaningful_disagreements} |",
        f"| Coordinator overrides of the verifier | {team.coordinator_overrides} |",
        f"| Verifier verdicts contradicting ground truth | {team.verifier_disagreements} |",
        f"| Reviewer warnings (trigger steps) | {team.triggers} |",
        f"| Precision warning→failure | {pct(team.precision)} ({team.warned_failed}/{team.warned_tasks}) |",
        f"| Recall failure→warning | {pct(team.recall)} ({team.failed_warned}/{team.failed_tasks}) |",
        "",
        "## Disagreement types",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in team.disagreement_types.items()] or ["- none"]
    lines += ["", "## Critical disagreement score (verdicts contradicting ground truth)", "", "| Score | Tasks |",
              "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in team.critical_scores.items()]
    missed, ended_correct = team.failed_tasks - team.failed_warned, team.warned_tasks - team.warned_failed
    lines += ["", "## Failure prevention", "",
              f"{missed} failed task(s) passed review without a warning; {ended_correct} warned task(s) ended correct."]
    return "\n".join(lines) + "\n"
