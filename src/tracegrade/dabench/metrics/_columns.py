"""The task_metrics column table: every column's category, type, range, formula and source."""

from __future__ import annotations

from dataclasses import dataclass

from tracegrade.dabench.metrics._aat import stage_column
from tracegrade.dabench.reading._vocab import ACTION_COLUMNS

__all__ = ["CATEGORIES", "TASK_COLUMNS", "MetricColumn"]


@dataclass(frozen=True, slots=True)
class MetricColumn:
    """One column of task_metrics.csv."""

    name: str
    category: str
    dtype: str
    """int, float, bool (0/1 or true/false) or str."""
    range: str
    formula: str
    source: str


T, S, G, D, R = "trace", "summary.json or trace", "prediction.csv + gold.csv", "task.json + context/", "rich trace"
_SPEC: dict[str, list[tuple[str, str, str, str, str]]] = {
    "Identification": [
        ("run_id", "str", "-", "summary.json run_id, else the folder name", "summary.json"),
        ("task_id", "str", "-", "task folder name task_<id>", "summary.json"),
        ("trace_id", "str", "-", "<task_id>/<trace file read>", T),
        ("difficulty", "str", "easy|medium|hard|extreme", "task.json difficulty", D),
        ("timestamp", "str", "ISO 8601", "first step timestamp", R),
        ("trace_format", "str", "react|dag|langgraph|rich|failure_payload|missing", "detected trace variant", T),
        ("task_errors", "str", "codes joined by |", "safe codes of every unreadable part of the task", "reader"),
    ],
    "Task Metadata": [
        ("task_type", "str", "single_source|multi_source", "multi_source when source kinds ≥ 2", D),
        ("source_count", "int", "[0, ∞)", "data files under context/ (knowledge.md excluded)", D),
        ("source_types", "str", "kinds joined by +", "distinct file extensions under context/", D),
        ("requires_cross_source_reasoning", "bool", "{0, 1}", "source kinds ≥ 2 (heuristic)", D),
        ("ground_truth_available", "bool", "{0, 1}", "gold.csv readable", D),
    ],
    "Correctness": [
        ("final_score", "float", "[0, 1]", "max(0, recall − λ·extra/predicted) over column signatures", G),
        ("kdd_recall", "float", "[0, 1]", "covered gold columns / gold columns", G),
        ("answer_precision", "float", "[0, 1]", "matched_cells / pred_cells", G),
        ("answer_recall", "float", "[0, 1]", "matched_cells / gold_cells", G),
        ("answer_f1", "float", "[0, 1]", "2·matched_cells / (pred_cells + gold_cells)", G),
        ("column_precision", "float", "[0, 1]", "matched_prediction_columns / pred_cols", G),
        ("column_recall", "float", "[0, 1]", "matched_columns / gold_cols", G),
        ("column_f1", "float", "[0, 1]", "2·P·R/(P+R); 0 when nothing was predicted", G),
        ("row_precision", "float", "[0, 1]", "min(pred_rows, gold_rows) / pred_rows", G),
        ("row_recall", "float", "[0, 1]", "min(pred_rows, gold_rows) / gold_rows", G),
        ("row_f1", "float", "[0, 1]", "2·P·R/(P+R); 0 when nothing was predicted", G),
        ("matched_columns", "int", "[0, gold_cols]", "gold columns covered (signature or name rule)", G),
        ("matched_prediction_columns", "int", "[0, pred_cols]", "prediction columns matched", G),
        ("extra_columns", "int", "[0, pred_cols]", "pred_cols − matched_prediction_columns", G),
        ("prediction_present", "bool", "{0, 1}", "prediction.csv exists and is readable", "prediction.csv"),
        ("pred_rows", "int", "[0, ∞)", "data rows of prediction.csv (0 when missing)", "prediction.csv"),
        ("pred_cols", "int", "[0, ∞)", "columns of prediction.csv (0 when missing)", "prediction.csv"),
        ("gold_rows", "int", "[0, ∞)", "data rows of gold.csv", "gold.csv"),
        ("gold_cols", "int", "[0, ∞)", "columns of gold.csv", "gold.csv"),
        ("dataspace_task_accuracy", "int", "{0, 1}", "same shape and a column permutation with equal row multisets", G),
        ("dataspace_error_code", "str", "DataSpace error codes", "why the DataSpace check failed (empty: passed)", G),
        ("answer_error_code", "str", "missing_prediction|invalid_prediction_csv", "why the prediction was unusable", G),
    ],
    "Execution": [
        ("execution_success", "int", "{0, 1}", "the runner's succeeded flag (answer submitted, no failure)", S),
        ("execution_time", "float", "[0, ∞)", "e2e_elapsed_seconds (wall clock)", T),
        ("total_tokens", "int", "[0, ∞)", "Σ input + output tokens over steps", "trace (langgraph, rich)"),
        (
            "llm_calls",
            "int",
            "[0, ∞)",
            "model turns (react: every step; dag: all but scheduler; langgraph: model nodes)",
            T,
        ),
        ("tool_calls", "int", "[0, ∞)", "tool invocations (answer included, pseudo-actions excluded)", T),
        ("tool_failures", "int", "[0, ∞)", "tool calls with ok=false or success=false", T),
    ],
    "Autonomy": [
        (
            "first_try_success",
            "int",
            "{0, 1}",
            "execution_success ∧ execution_attempts = 1 ∧ no replan",
            "trace (dag, rich)",
        ),
        ("replan_count", "int", "[0, ∞)", "max(0, plan_attempts − 1)", "trace (dag, rich)"),
        ("user_intervention_count", "int", "[0, ∞)", "steps with agent_type=human (0: none recorded)", T),
        ("autonomy_score", "float", "[0, 1]", "clamp(1 − replan_count / max_replans)", "trace (dag, rich)"),
        ("coordinator_interventions", "int", "[0, ∞)", "max(0, coordinator_calls − 3)", R),
    ],
    "Planning": [
        ("planner_steps", "int", "[0, ∞)", "steps with a planning action or agent_type=planner", T),
        ("planner_revisions", "int", "[0, ∞)", "max(0, plan_attempts − 1)", "trace (dag, rich)"),
        ("planner_dead_ends", "int", "[0, ∞)", "max(0, execution_attempts − 1)", "trace (dag, rich)"),
        (
            "plan_execution_alignment",
            "float",
            "(0, 1]",
            "1 / execution_attempts (1.0 on the first try)",
            "trace (dag, rich)",
        ),
        ("plan_attempts", "int", "[1, ∞)", "rich plan_attempts, else planning steps", "trace (dag, rich)"),
        (
            "execution_attempts",
            "int",
            "[1, ∞)",
            "rich execution_attempts, else max DAG node attempt",
            "trace (dag, rich)",
        ),
    ],
    "Tool Usage": [
        ("unique_tools_used", "int", "[0, ∞)", "|{tool names}|", T),
        ("tool_diversity", "float", "(0, 1]", "unique_tools_used / tool_calls", T),
        (
            "useful_tool_calls",
            "int",
            "[0, ∞)",
            "distinct successful explore calls + 1 if an execute call succeeded + 1 if the answer call succeeded",
            T,
        ),
        ("wasted_tool_calls", "int", "[0, ∞)", "tool_calls − useful_tool_calls", T),
        ("tool_efficiency", "float", "[0, 1]", "useful_tool_calls / tool_calls", T),
        (
            "tool_retry_count",
            "int",
            "[0, ∞)",
            "calls repeating a failed call's tool right after it + Σ step retries",
            T,
        ),
        ("tool_selection_accuracy", "float", "[0, 1]", "max(0, (useful − failures) / tool_calls)", T),
    ],
    "Data Understanding": [
        ("tables_discovered", "int", "[0, ∞)", "distinct tables seen in exploration output", T),
        ("columns_discovered", "int", "[0, ∞)", "distinct table.column names seen in exploration output", T),
        ("relevant_tables_found", "int", "[0, ∞)", "HEURISTIC: equals tables_discovered (no relevance oracle)", T),
        ("relevant_columns_found", "int", "[0, ∞)", "matched_columns", G),
        ("schema_exploration_steps", "int", "[0, ∞)", "steps in phase UNDERSTAND", T),
        ("specialist_activation_score", "float", "[0, 1]", "(schema + domain [+ document if required]) / (2 [+1])", R),
        ("discovery_score", "float", "[0, 1]", "(relevant_tables/tables + min(1, relevant_columns/columns)) / 2", T),
        (
            "data_understanding_score",
            "float",
            "[0, 1]",
            "clamp(0.5·specialist_activation_score + 0.5·discovery_score)",
            R,
        ),
    ],
    "Verification": [
        ("verification_triggered", "int", "{0, 1}", "1 if critic steps > 0", T),
        ("verification_steps", "int", "[0, ∞)", "count(critic steps)", T),
        ("verification_passed", "int", "{0, 1}", "legacy = critic_verification_passed (a boolean, never 2)", T),
        ("verification_failures_detected", "int", "[0, ∞)", "legacy = critic_failures_detected", T),
        ("verification_score", "float", "[0, 1]", "legacy = critic_verification_score", T),
        ("critic_verification_passed", "int", "{0, 1}", "last critic verdict passed", T),
        ("critic_verification_score", "float", "[0, 1]", "passing critic checks / critic checks with a verdict", T),
        ("critic_failures_detected", "int", "[0, ∞)", "critic checks that failed", T),
        ("aat_verification_triggered", "int", "{0, 1}", "1 if an AAT verifier step ran", R),
        ("aat_verification_passed", "int", "{0, 1}", "coordinator_final_decision = APPROVE_FINAL", R),
        ("aat_verification_score", "float", "[0, 1]", "confidence of the last verifier step", R),
    ],
    "Recovery": [
        ("failure_detected", "int", "{0, 1}", "a failed step, or the task failed", T),
        ("failure_stage", "str", "AAT phase", "phase of the first failed step", T),
        ("recovery_success", "int", "{0, 1}", "failed steps occurred and the task still succeeded", T),
        ("recovery_depth", "int", "[1, ∞)", "failed steps before the successful end", T),
        (
            "recovery_success_rate",
            "float",
            "[0, 1]",
            "failed steps followed by a later success of the same action / failed steps",
            T,
        ),
    ],
    "Trajectory": [
        ("trajectory_length", "int", "[0, ∞)", "count(steps)", T),
        ("trajectory_summary", "str", "pattern", "phases in order, repeats collapsed, REPLAN/RETRY marked", T),
        (
            "branching_factor",
            "float",
            "[1, ∞)",
            "mean children per node with children (parent links or plan DAG)",
            "trace (dag, rich)",
        ),
        (
            "max_execution_depth",
            "int",
            "[0, ∞)",
            "longest root-to-node path (parent links or plan DAG)",
            "trace (dag, rich)",
        ),
        ("critic_loops", "int", "[0, ∞)", "max(0, critic steps − 1)", T),
        ("trajectory_efficiency", "float", "[0, 1]", "successful, non-repeated steps / steps", T),
    ],
    "Failure Taxonomy": [
        (
            "outcome_status",
            "str",
            "correct|partial|failed|missing_artefact",
            "missing_artefact: a prediction summary.json lists is absent; correct: final ≥ 0.8; partial: "
            "executed ∧ 0 < final < 0.8; else failed",
            G,
        ),
        ("outcome_error_type", "str", "evaluation bucket", "first matching bucket (see docs/dabench-scoring.md)", G),
        ("failure_category", "str", "taxonomy enum", "bucket → category table", "derived"),
        ("root_cause", "str", "-", "bucket → root cause (timeouts and crashes from failure_reason)", "derived"),
        ("recoverable_failure", "bool", "{0, 1}", "false when the run ended without an answer", "derived"),
        (
            "severity",
            "str",
            "CRITICAL|HIGH|MEDIUM|LOW",
            "no answer: CRITICAL; score 0: HIGH; < 0.5: MEDIUM; else LOW",
            "derived",
        ),
        ("failure_reason", "str", "-", "the runner's failure_reason, else an explanation of the bucket", S),
        (
            "failure_agent",
            "str",
            "-",
            "agent of the first failed step, else of the stage, else the table's role",
            "derived",
        ),
        ("failure_attribution_stage", "str", "UNDERSTAND|PLAN|EXECUTE|VERIFY|AGGREGATE",
         "bucket → stage (null for a missing artefact)", "derived"),
        ("suggested_fix", "str", "-", "bucket → fix", "derived"),
    ],
    "Confidence": [
        ("confidence_score", "float", "[0, 1]", "task confidence_score, else the last step confidence", R),
        ("confidence_correct", "int", "{0, 1}", "confidence ≥ 0.8 ∧ final_score ≥ 0.8", R),
        ("confidence_error", "float", "[0, 1]", "|confidence − final_score|", R),
        ("calibration_bucket", "str", "very_low..very_high", "0.2-wide bins of confidence", R),
    ],
    "Composite": [
        (
            "analyst_score",
            "float",
            "[0, 1]",
            "0.4·autonomy_score + 0.3·tool_efficiency + 0.3·verification_score",
            "derived",
        ),
    ],
    "AAT Architecture": [
        ("coordinator_calls", "int", "[0, ∞)", "steps with agent_type=coordinator", R),
        ("coordinator_final_decision", "str", "APPROVE_FINAL|RETRY_EXECUTION|REPLAN", "task-level field", R),
        ("coordinator_checkpoints", "int", "[0, ∞)", "steps with a coordinator_checkpoint", R),
        ("schema_agent_called", "int", "{0, 1}", "a schema specialist ran", R),
        ("domain_agent_called", "int", "{0, 1}", "a domain specialist ran", R),
        ("document_agent_called", "int", "{0, 1}", "a document specialist ran", R),
        ("schema_agent_used", "int", "{0, 1}", "same as schema_agent_called (the seed uses both names)", R),
        ("domain_agent_used", "int", "{0, 1}", "same as domain_agent_called (the seed uses both names)", R),
        ("document_agent_used", "int", "{0, 1}", "same as document_agent_called (the seed uses both names)", R),
        ("specialist_participation", "float", "[0, 1]", "specialists called / 3", R),
        ("initial_answer_correct", "int", "{0, 1}", "first answer step scores ≥ 0.8 against gold", "trace + gold.csv"),
        ("final_answer_correct", "int", "{0, 1}", "final_score ≥ 0.8", G),
        ("recovered_after_replan", "int", "{0, 1}", "¬initial ∧ final ∧ replan_count > 0", "derived"),
        ("recovered_after_retry", "int", "{0, 1}", "¬initial ∧ final ∧ execution_attempts > 1", "derived"),
        ("replan_requested", "int", "[0, ∞)", "coordinator decisions REPLAN", R),
        ("replan_successful", "int", "{0, 1}", "final_answer_correct when a replan was requested", R),
        ("retry_requested", "int", "[0, ∞)", "coordinator decisions RETRY_EXECUTION", R),
        ("retry_successful", "int", "{0, 1}", "final_answer_correct when a retry was requested", R),
    ],
    "Research": [
        (
            "cross_source_reasoning_success",
            "int",
            "{0, 1}",
            "final_score ≥ 0.8 on a multi-source task",
            "task metadata + gold",
        ),
        ("explanation_quality_score", "float", "[0, 1]", "as the trace states it (not graded in part 1)", R),
        (
            "reproducibility_score",
            "float",
            "[0, 1]",
            "vote rounds whose answer signature equals the primary answer / rounds",
            "trace_r*.json",
        ),
    ],
}

_STAGE_TEXT = {"time": ("float", "Σ duration_seconds of the stage's steps"), "calls": ("int", "steps in the stage")}
_STAGE_TEXT["tokens"] = ("int", "Σ tokens of the stage's steps")
_SPEC["Per-Stage"] = [
    (stage_column(stage, m), _STAGE_TEXT[m][0], "[0, ∞)", _STAGE_TEXT[m][1], T if m == "calls" else R)
    for stage in ("understanding", "planning", "execution", "verification", "summary")
    for m in ("time", "calls", "tokens")
]
_SPEC["Per-Action"] = [
    (
        f"{a}_{m}",
        "int" if m == "calls" else "float",
        "[0, ∞)",
        f"{'count' if m == 'calls' else 'Σ latency'} of {a}",
        T if m == "calls" else R,
    )
    for a in ACTION_COLUMNS
    for m in ("calls", "time")
]

CATEGORIES = tuple(_SPEC)
TASK_COLUMNS: tuple[MetricColumn, ...] = tuple(
    MetricColumn(n, cat, d, r, f, s) for cat, rows in _SPEC.items() for n, d, r, f, s in rows
)
