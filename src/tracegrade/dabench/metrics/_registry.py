"""The metric registry: every family in computation order, and the evaluation of one task."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from tracegrade.dabench.metrics._aat import aat, mas_effectiveness, per_action, per_stage
from tracegrade.dabench.metrics._answer import AnswerScore, score_answer
from tracegrade.dabench.metrics._columns import TASK_COLUMNS, MetricColumn
from tracegrade.dabench.metrics._failure import failure_taxonomy
from tracegrade.dabench.metrics._families import Family, MetricContext, Out
from tracegrade.dabench.metrics._outcome import correctness, execution, identification, task_metadata
from tracegrade.dabench.metrics._params import MetricParams
from tracegrade.dabench.metrics._process import autonomy, data_understanding, planning, tool_usage, verification
from tracegrade.dabench.metrics._scores import composite, confidence, research
from tracegrade.dabench.metrics._trajectory import recovery, trajectory
from tracegrade.dabench.reading._records import TaskRecord, Value

__all__ = ["FAMILIES", "TaskMetrics", "column_family", "evaluate_task", "failed_task_metrics"]

_MAS = frozenset({"initial_answer_correct", "final_answer_correct", "recovered_after_replan", "recovered_after_retry",
                  "replan_requested", "replan_successful", "retry_requested", "retry_successful"})
_BY_CATEGORY: dict[str, Callable[[MetricContext], Out]] = {
    "Identification": identification, "Task Metadata": task_metadata, "Correctness": correctness,
    "Execution": execution, "Autonomy": autonomy, "Planning": planning, "Tool Usage": tool_usage,
    "Data Understanding": data_understanding, "Verification": verification, "Recovery": recovery,
    "Trajectory": trajectory, "Failure Taxonomy": failure_taxonomy, "Confidence": confidence,
    "Composite": composite, "AAT Architecture": aat, "Research": research, "Per-Stage": per_stage,
    "Per-Action": per_action,
}
"""The family of each column category (a family is named as its function)."""


def column_family(column: MetricColumn) -> str:
    """The name of the family that fills ``column``."""
    return "mas_effectiveness" if column.name in _MAS else _BY_CATEGORY[column.category].__name__


def _families() -> tuple[Family, ...]:
    functions = list(_BY_CATEGORY.values())
    functions.insert(functions.index(aat) + 1, mas_effectiveness)
    return tuple(
        Family(fn.__name__, fn, tuple(c.name for c in TASK_COLUMNS if column_family(c) == fn.__name__))
        for fn in functions
    )


FAMILIES: tuple[Family, ...] = _families()
"""Every metric family in computation order (a family may read the values of the ones before it)."""


@dataclass(frozen=True, slots=True)
class TaskMetrics:
    """One task_metrics row (in column order) with the reason for every null, and its answer score."""

    values: dict[str, Value]
    reasons: dict[str, str]
    score: AnswerScore | None


def evaluate_task(record: TaskRecord, params: MetricParams) -> TaskMetrics:
    """Run every metric family on one task."""
    gold = record.task.gold
    score = None
    if gold is not None:
        score = score_answer(gold, record.prediction, lam=params.lam, prediction_error=record.prediction_error)
    values: dict[str, Value] = {}
    reasons: dict[str, str] = {}
    context = MetricContext(record, score, record.task.gold_reason, params, values, reasons)  # sees each update
    for family in FAMILIES:
        out: Out = family.compute(context)
        values.update(out.values)
        reasons.update(out.reasons)
    ordered = dict(zip(_NAMES, _IN_ORDER(values), strict=True))
    return TaskMetrics(ordered, {k: v for k, v in reasons.items() if ordered.get(k) is None}, score)


_NAMES = tuple(c.name for c in TASK_COLUMNS)
_IN_ORDER = operator.itemgetter(*_NAMES)
"""The task_metrics values in column order."""


def failed_task_metrics(run_id: str, task_id: str, code: str) -> TaskMetrics:
    """The row of a task that could not be evaluated at all: ids and its error code, every metric null."""
    values: dict[str, Value] = dict.fromkeys((c.name for c in TASK_COLUMNS), None)
    values.update(run_id=run_id, task_id=task_id, task_errors=code)
    reasons = {name: f"task could not be evaluated ({code})" for name, value in values.items() if value is None}
    return TaskMetrics(values, reasons, None)
