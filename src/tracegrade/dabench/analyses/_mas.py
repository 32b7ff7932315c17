"""Multi-agent sections: MAS effectiveness, coordinator interventions, specialist value, failure analysis, AAT."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import fmean

from tracegrade.dabench.analyses._overview import MEASURE_COLUMNS, value_row
from tracegrade.dabench.analyses._sections import Cell, Section, column, pct, pct_of
from tracegrade.dabench.metrics._failure import FAILED_OUTCOMES, HARNESS_OUTCOME
from tracegrade.dabench.reading._vocab import SPECIALISTS
from tracegrade.dabench.tables._evaluated import Row, RunRows, count_true, numbers
from tracegrade.stats import ratio

__all__ = ["aat_section", "coordinator_section", "failure_sections", "mas_effectiveness_section",
           "specialist_section", "verification_timeline_section"]

NO_COORDINATOR = "no coordinator data in these traces"


def mas_effectiveness_section(run: RunRows) -> Section:
    """First-attempt vs final accuracy and the tasks the multi-agent loop recovered."""
    pairs = [
        (int(r["initial_answer_correct"]), int(r["final_answer_correct"]))  # type: ignore[arg-type]
        for r in run.rows
        if r.get("initial_answer_correct") is not None and r.get("final_answer_correct") is not None
    ]
    base = Section(id="mas-effectiveness", title="MAS effectiveness", columns=MEASURE_COLUMNS)
    if not pairs:
        base.empty = "no first-attempt answers with gold: recovery unknown"
        return base
    first = sum(a for a, _ in pairs) / len(pairs)
    final = sum(b for _, b in pairs) / len(pairs)
    recovered = sum(1 for a, b in pairs if a == 0 and b == 1)
    lost = sum(1 for a, b in pairs if a == 1 and b == 0)
    base.rows = [
        value_row("Tasks with both answers", str(len(pairs)), len(pairs)),
        value_row("First attempt accuracy", pct(first), first),
        value_row("Final accuracy", pct(final), final),
        value_row("Recovered tasks", str(recovered), recovered),
        value_row("Lost after first attempt", str(lost), lost),
        value_row("MAS recovery gain", f"{(final - first) * 100:+.1f} pp", final - first),
    ]
    base.notes = ["First attempt: the first answer step of the trace scored against gold; final: final_score."]
    return base


def _intervention(label: str, rows: Sequence[Row], kind: str) -> dict[str, Cell]:
    requested = numbers(rows, f"{kind}_requested")
    successes, known = count_true(rows, f"{kind}_successful")
    return {
        "kind": label,
        "tasks": sum(1 for v in requested if v > 0),
        "requests": int(sum(requested)),
        "successful": successes,
        "rate": ratio(successes, known),
    }


def coordinator_section(run: RunRows) -> Section:
    """Replans and retries the coordinator requested and how often the task then ended correct."""
    columns = [
        column("kind", "Intervention", min_width=10),
        column("tasks", "Tasks", "int", min_width=5),
        column("requests", "Requests", "int", min_width=8),
        column("successful", "Successful", "int", min_width=8),
        column("rate", "Success rate", "pct", min_width=8),
    ]
    section = Section(id="coordinator", title="Coordinator intervention effectiveness", columns=columns)
    if not numbers(run.rows, "replan_requested") and not numbers(run.rows, "retry_requested"):
        section.empty = NO_COORDINATOR
        return section
    section.rows = [_intervention("Replans", run.rows, "replan"), _intervention("Retries", run.rows, "retry")]
    section.notes = ["Successful: the task's final answer was correct after the intervention (needs gold)."]
    return section


def _accuracy(rows: Sequence[Row]) -> float | None:
    hits, known = count_true(rows, "final_answer_correct")
    return ratio(hits, known)


def specialist_section(run: RunRows) -> Section:
    """Automatic ablation: accuracy of tasks with and without each specialist."""
    columns = [
        column("agent", "Specialist", min_width=10),
        column("used", "Tasks used", "int", min_width=6),
        column("with", "Acc. with", "pct", min_width=7),
        column("without", "Acc. without", "pct", min_width=7),
        column("impact", "Impact", "signed", min_width=7),
    ]
    section = Section(id="specialists", title="Specialist agent value", columns=columns)
    for kind in SPECIALISTS:
        used = [r for r in run.rows if r.get(f"{kind}_agent_used") == 1]
        unused = [r for r in run.rows if r.get(f"{kind}_agent_used") == 0]
        if not used and not unused:
            continue
        with_, without = _accuracy(used), _accuracy(unused)
        impact = with_ - without if with_ is not None and without is not None else None
        section.rows.append(
            {"agent": kind.title(), "used": len(used), "with": with_, "without": without, "impact": impact}
        )
    if not section.rows:
        section.empty = "no specialist data in these traces"
    section.notes = ["Impact: accuracy with minus without, in percentage points (an association, not a causal effect)."]
    return section


def _distribution(section_id: str, title: str, label: str, rows: Sequence[Row], key: str, empty: str) -> Section:
    counts = Counter(str(r[key]) for r in rows if r.get(key) is not None)
    total = sum(counts.values())
    columns = [
        column("name", label, min_width=16),
        column("tasks", "Tasks", "int", min_width=5),
        column("share", "Share", "pct", min_width=6),
    ]
    out = [
        {"name": n, "tasks": c, "share": c / total} for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return Section(id=section_id, title=title, columns=columns, rows=out, empty=None if out else empty)


def failure_sections(run: RunRows) -> list[Section]:
    """MAS failure categories, failure distribution by stage and outcome error types (failed tasks).

    Tasks whose prediction is a missing artefact are no agent failure: they are left out of these
    distributions, and each section names how many there are.
    """
    failed = [r for r in run.rows if r.get("outcome_status") in FAILED_OUTCOMES]
    missing = sum(1 for r in run.rows if r.get("outcome_status") == HARNESS_OUTCOME)
    empty = "no failed tasks" if run.rows else "no tasks in this run"
    sections = [
        _distribution("failure-categories", "MAS failure categories", "Category", failed, "failure_category", empty),
        _distribution("failure-stages", "Failure distribution by stage", "Stage", failed, "failure_attribution_stage",
                      empty),
        _distribution("outcome-errors", "Outcome error types", "Error type", failed, "outcome_error_type", empty),
    ]
    if missing:
        note = missing_artefact_note(missing)
        for section in sections:
            section.notes = [*section.notes, note]
    return sections


def missing_artefact_note(tasks: int) -> str:
    """The line every taxonomy shows for the tasks it leaves out as harness/input problems."""
    return (f"Left out: {tasks} task{'s' if tasks != 1 else ''} whose prediction.csv summary.json lists is absent "
            "(HARNESS_INPUT_FAILURE / missing_artefact: a harness or input problem, not the agent's behaviour).")


def aat_section(run: RunRows) -> Section:
    """Coordinator decisions, specialist activation and the two verification outcomes."""
    rows = run.rows
    decisions = Counter(str(r["coordinator_final_decision"]) for r in rows if r.get("coordinator_final_decision"))
    calls, participation = numbers(rows, "coordinator_calls"), numbers(rows, "specialist_participation")
    out = [value_row(f"Final decision {d}", str(n), n) for d, n in sorted(decisions.items())]
    if calls:
        out.append(value_row("Mean coordinator calls", f"{fmean(calls):.2f}", fmean(calls)))
    if participation:
        out.append(value_row("Mean specialist participation", pct(fmean(participation)), fmean(participation)))
    for label, key in (
        ("AAT verifier triggered", "aat_verification_triggered"),
        ("AAT verification passed", "aat_verification_passed"),
        ("Critic verification triggered", "verification_triggered"),
        ("Critic verification passed", "critic_verification_passed"),
    ):
        hits, known = count_true(rows, key)
        if known:
            out.append(value_row(label, pct_of(hits, known), ratio(hits, known)))
    section = Section(id="aat", title="AAT metrics", columns=MEASURE_COLUMNS, rows=out)
    if not out:
        section.empty = NO_COORDINATOR
    section.notes = ["AAT verification passed = coordinator APPROVE_FINAL; the critic's verdict is independent of it."]
    return section


def verification_timeline_section(run: RunRows) -> Section:
    """Execution approval (the coordinator's decision) against ground truth (the evaluation)."""
    columns = [
        column("approval", "Execution approval", min_width=14),
        column("correct", "Correct", "int", min_width=7),
        column("incorrect", "Incorrect", "int", min_width=9),
        column("unknown", "No gold", "int", priority=1, min_width=7),
        column("total", "Total", "int", min_width=5),
    ]
    section = Section(id="verification-timeline", title="Verification timeline", columns=columns)
    decided = [r for r in run.rows if r.get("coordinator_final_decision")]
    if not decided:
        section.empty = NO_COORDINATOR
        return section
    for label, approved in (("Approved", True), ("Not approved", False)):
        group = [r for r in decided if (str(r["coordinator_final_decision"]).upper() == "APPROVE_FINAL") == approved]
        truth = [r.get("final_answer_correct") for r in group]
        section.rows.append({"approval": label, "correct": truth.count(1), "incorrect": truth.count(0),
                             "unknown": truth.count(None), "total": len(group)})
    section.notes = [
        "Approval is the coordinator's process decision (APPROVE_FINAL); correctness is the evaluation against gold.",
        "An approved answer can still be wrong: approval is not correctness.",
    ]
    return section
