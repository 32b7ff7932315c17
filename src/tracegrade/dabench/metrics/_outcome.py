"""Metric families about the task and its outcome: identification, metadata, correctness, execution."""

from __future__ import annotations

from tracegrade.dabench.metrics._families import NO_STEPS, NO_TOKENS, MetricContext, Out, f1
from tracegrade.stats import ratio

__all__ = ["correctness", "execution", "identification", "task_metadata"]

_CORRECTNESS_NEED_GOLD = ("final_score", "kdd_recall", "answer_precision", "answer_recall", "answer_f1",
                          "column_precision", "column_recall", "column_f1", "row_precision", "row_recall",
                          "row_f1", "matched_columns", "matched_prediction_columns", "extra_columns",
                          "gold_rows", "gold_cols", "dataspace_task_accuracy", "dataspace_error_code",
                          "answer_error_code")


def identification(ctx: MetricContext) -> Out:
    """run_id, task_id, trace_id, difficulty, timestamp and the task's read errors."""
    record, out = ctx.record, Out()
    out.put("run_id", record.run_id)
    out.put("task_id", record.task_id)
    trace_id = f"{record.task_id}/{record.trace_file}" if record.trace_file else None
    out.put("trace_id", trace_id, "no trace file in the task folder")
    out.put("difficulty", record.task.difficulty, "no task.json (give --data-root)")
    first = next((s.timestamp for s in record.steps if s.timestamp), None)
    out.put("timestamp", first, "no step timestamps in this trace format")
    out.put("trace_format", record.trace_format.value)
    codes = sorted({code for code, _ in record.errors})
    out.put("task_errors", "|".join(codes) if codes else "")
    return out


def task_metadata(ctx: MetricContext) -> Out:
    """Task type and sources from the dataset's ``context/`` folder; whether gold exists."""
    task, out = ctx.record.task, Out()
    reason = "no context/ folder for this task (give --data-root)"
    kinds = task.source_kinds
    out.put("source_count", task.source_count, reason)
    out.put("source_types", "+".join(kinds) if kinds is not None else None, reason)
    cross = None if kinds is None else len(kinds) >= 2
    out.put("requires_cross_source_reasoning", cross, reason)
    out.put("task_type", None if cross is None else ("multi_source" if cross else "single_source"), reason)
    out.put("ground_truth_available", task.gold is not None)
    return out


def correctness(ctx: MetricContext) -> Out:
    """KDD Phase-1 final_score, DataSpace accuracy and cell/column/row precision, recall and F1."""
    record, score, out = ctx.record, ctx.score, Out()
    prediction = record.prediction
    out.put("prediction_present", prediction is not None)
    out.put("pred_rows", len(prediction.rows) if prediction else 0)
    out.put("pred_cols", len(prediction.columns) if prediction else 0)
    if score is None:
        out.null(_CORRECTNESS_NEED_GOLD, ctx.score_reason or "no gold answer")
        return out
    match = score.match
    out.put("final_score", score.final_score)
    out.put("kdd_recall", match.recall)
    out.put("matched_columns", match.covered_gold_columns)
    out.put("matched_prediction_columns", match.matched_prediction_columns)
    out.put("extra_columns", match.extra_columns)
    out.put("gold_rows", score.gold_rows)
    out.put("gold_cols", match.gold_columns)
    pred_cells, gold_cells = score.prediction_rows * match.prediction_columns, score.gold_rows * match.gold_columns
    _cells(out, score.matched_cells, pred_cells, gold_cells)
    no_pred = "no prediction columns (0/0)"
    col_p = ratio(match.matched_prediction_columns, match.prediction_columns)
    col_r = ratio(match.covered_gold_columns, match.gold_columns)
    out.put("column_precision", col_p, no_pred)
    out.put("column_recall", col_r, "gold has no columns")
    out.put("column_f1", f1(col_p, col_r) if col_p is not None else _zero_if(col_r), no_pred)
    both = min(score.prediction_rows, score.gold_rows)
    row_p = ratio(both, score.prediction_rows)
    row_r = ratio(both, score.gold_rows)
    out.put("row_precision", row_p, "no prediction rows (0/0)")
    out.put("row_recall", row_r, "gold has no rows (0/0)")
    out.put("row_f1", f1(row_p, row_r) if row_p is not None else _zero_if(row_r), "no rows on either side")
    out.put("dataspace_task_accuracy", int(score.dataspace_pass))
    out.put("dataspace_error_code", score.dataspace_error or "")
    out.put("answer_error_code", score.prediction_error or "")
    return out


def _zero_if(recall: float | None) -> float | None:
    return 0.0 if recall is not None else None


def _cells(out: Out, matched: int, pred_cells: int, gold_cells: int) -> None:
    out.put("answer_precision", ratio(matched, pred_cells), "no predicted cells (0/0)")
    out.put("answer_recall", ratio(matched, gold_cells), "gold has no cells (0/0)")
    out.put("answer_f1", ratio(2 * matched, pred_cells + gold_cells), "no cells on either side")


def execution(ctx: MetricContext) -> Out:
    """Execution success, wall-clock time, tokens, LLM and tool calls."""
    record, out = ctx.record, Out()
    success = None if record.succeeded is None else int(record.succeeded)
    out.put("execution_success", success, "neither summary.json nor the trace says whether the task succeeded")
    out.put("execution_time", record.elapsed_seconds, "no e2e_elapsed_seconds in this trace")
    if not record.has_steps:
        out.null(("total_tokens", "llm_calls", "tool_calls", "tool_failures"), NO_STEPS)
        return out
    tokens = [s.tokens for s in record.steps if s.tokens is not None]
    out.put("total_tokens", sum(tokens) if tokens else None, NO_TOKENS)
    out.put("llm_calls", sum(1 for s in record.steps if s.is_llm_call))
    calls = [c for s in record.steps for c in s.tool_calls]
    out.put("tool_calls", len(calls))
    out.put("tool_failures", sum(1 for c in calls if not c.ok))
    return out
