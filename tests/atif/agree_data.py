"""Hand-built evaluation results for the agreement tests (no judge involved)."""

from __future__ import annotations

from typing import Any

from tests.atif.helpers import recorded_parameters
from tracegrade.atif.agreement._agree import measure_agreement
from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.agreement._records import AgreementReport
from tracegrade.atif.scoring._records import CategorizationStatus, NodeResult, RunSummary, StepResult, StepStatus
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.runs import JobStatus

FAILURE_THRESHOLD = 0.5


def step(
    index: int, score: float | None, category: str | None = None, *, status: StepStatus = StepStatus.SCORED
) -> StepResult:
    candidate = score is not None and score < FAILURE_THRESHOLD
    values: dict[str, Any] = {"failure_candidate": candidate}
    if candidate:
        values["category"] = category
        values["categorization_status"] = (
            CategorizationStatus.UNCATEGORIZED
            if category == "uncategorized"
            else CategorizationStatus.JUDGE_ERROR
            if category is None
            else CategorizationStatus.CATEGORIZED
        )
    return StepResult(index=index, segment=0, step_id=index, source="agent", status=status, score=score, **values)


def node(
    node_id: str,
    steps: list[StepResult],
    *,
    trajectory_id: str | None = None,
    session_id: str | None = None,
    completion: float = 0.5,
) -> NodeResult:
    scores = [s.score for s in steps if s.score is not None]
    own = sum(scores) / len(scores) if scores else None
    return NodeResult(
        node_id=node_id,
        parent_id=None,
        root_id=node_id,
        source_path=f"/x/{node_id}",
        location="",
        trajectory_id=trajectory_id,
        session_id=session_id,
        agent="a",
        depth=0,
        status="scored" if own is not None else "failed",
        complete=own is not None,
        own_score=own,
        aggregate=own,
        passed=None if own is None else own >= completion,
        step_count=len(scores),
        subtree_step_count=len(scores),
        total_steps=len(steps),
        steps=steps,
    )


def results(*nodes: NodeResult) -> EvaluationResults:
    summary = RunSummary(
        atif_overall_score=None,
        atif_trajectory_count=0,
        atif_failure_categorization_rate=None,
        overall_score=None,
        num_examples_evaluated=0,
        atif_complete=True,
        subagent_aggregation="flat",
        job_status=JobStatus.COMPLETED,
    )
    return EvaluationResults(
        job_id="job-1",
        created_at="2026-01-01T00:00:00+00:00",
        provenance={},
        summary=summary,
        parameters=recorded_parameters(failure_threshold=FAILURE_THRESHOLD),
        nodes=list(nodes),
    )


def two_trajectories() -> EvaluationResults:
    """A: 0.9 0.2(context_loss) 0.6 0.4(reasoning_failure); B: 0.8 0.7 0.1(tool_selection_failure)."""
    a = node(
        "a.json",
        [step(1, 0.9), step(2, 0.2, "context_loss"), step(3, 0.6), step(4, 0.4, "reasoning_failure")],
        trajectory_id="A",
        session_id="s",
    )
    b = node(
        "b.json",
        [step(1, 0.8), step(2, 0.7), step(3, 0.1, "tool_selection_failure")],
        trajectory_id="B",
        session_id="s",
    )
    return results(a, b)


STEP_LABELS = [
    Label(line=1, trajectory_id="A", step=1, score=5, failed=False),
    Label(line=2, trajectory_id="A", step=2, score=1, failed=True, category="context_loss", decisive=True),
    Label(line=3, trajectory_id="A", step=3, score=4, failed=False),
    Label(line=4, trajectory_id="A", step=4, score=2, failed=False, category="none"),
    Label(line=5, trajectory_id="B", step=1, score=3, failed=False),
    Label(line=6, trajectory_id="B", step=2, score=4, failed=True, category="reasoning_failure", decisive=True),
]
ROOT_LABELS = [
    Label(line=7, trajectory_id="A", failed=True, score=1),
    Label(line=8, node_id="b.json", failed=False, score=4),
]


def report(labels: list[Label] | None = None) -> AgreementReport:
    labels = labels or [*STEP_LABELS, *ROOT_LABELS]
    return measure_agreement(two_trajectories(), labels, labels_file="l.jsonl", resamples=500)
