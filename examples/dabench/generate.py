"""Regenerate the example DataAgent-Bench dataset and run (rich trace extension): ``python generate.py``.

Three tasks of a made-up shop: task_1 is answered on the first try, task_2 needs a replan and a retry
(its draft answer is wrong, the final one right; a second vote round agrees), task_3 times out after
failed tool calls. Everything is invented for tracegrade; nothing comes from the real benchmark.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RUN_ID = "demo-run"

TASKS: dict[str, dict[str, Any]] = {
    "task_1": {
        "difficulty": "easy",
        "question": "What was the total revenue of all orders placed in 2024?",
        "context": {
            "csv/orders.csv": "order_id,customer_id,amount,order_date\n1,10,1000.00,2024-02-01\n"
            "2,11,234.50,2024-03-09\n3,10,99.00,2023-12-30\n"
        },
        "gold": [["total_revenue"], ["1234.5"]],
    },
    "task_2": {
        "difficulty": "hard",
        "question": "How many active customers (as the policy defines them) does each region have?",
        "context": {
            "csv/orders.csv": "order_id,customer_id,amount\n1,10,5\n",
            "json/customers.json": json.dumps(
                {
                    "table": "customers",
                    "records": [
                        {"id": i, "area": a, "status": s}
                        for i, a, s in [
                            (10, "N", "A"),
                            (11, "N", "A"),
                            (12, "N", "A"),
                            (13, "S", "A"),
                            (14, "S", "A"),
                            (15, "S", "X"),
                        ]
                    ],
                }
            ),
            "doc/policy.md": "# Policy\nA customer is active when status is A. Area N is North, S is South.\n",
        },
        "gold": [["region", "customers"], ["North", "3"], ["South", "2"]],
    },
    "task_3": {
        "difficulty": "medium",
        "question": "Which product sold the most units?",
        "context": {"csv/sales.csv": "product,units\nWidget,40\nGadget,12\n"},
        "gold": [["product", "units"], ["Widget", "40"]],
    },
}


def step(index: int, agent: str, agent_type: str, phase: str, action: str, **extra: Any) -> dict[str, Any]:
    """One rich-trace step with timing and, for LLM agents, token counts."""
    base: dict[str, Any] = {
        "step_index": index,
        "agent": agent,
        "agent_type": agent_type,
        "phase": phase,
        "action": action,
        "thought": extra.pop("thought", ""),
        "action_input": extra.pop("action_input", {}),
        "observation": extra.pop("observation", {"ok": True}),
        "ok": extra.pop("ok", True),
        "duration_seconds": extra.pop("duration_seconds", 1.0),
        "timestamp": f"2026-06-01T10:{index:02d}:00Z",
    }
    if extra.pop("llm", agent_type != "executor"):
        base["tokens"] = {"input": 400, "output": 100, "reasoning": 20}
    base.update(extra)
    return base


def tool(
    index: int, agent: str, agent_type: str, phase: str, name: str, args: dict[str, Any], content: Any, **extra: Any
) -> dict[str, Any]:
    """A tool step in the official observation shape."""
    ok = extra.pop("ok", True)
    observation = {"ok": ok, "tool": name, "content": content} if ok else {"ok": False, "tool": name, "error": content}
    return step(
        index,
        agent,
        agent_type,
        phase,
        name,
        action_input=args,
        observation=observation,
        ok=ok,
        tool=name,
        llm=False,
        **extra,
    )


def coordinator(
    index: int, phase: str, checkpoint: str, decision: str, confidence: float, parent: int | None = None
) -> dict[str, Any]:
    """A coordinator checkpoint decision."""
    return step(
        index,
        "StrategicCoordinator",
        "coordinator",
        phase,
        "coordinate",
        coordinator_checkpoint=checkpoint,
        decision=decision,
        confidence=confidence,
        parent_step_id=parent,
    )


def answer(index: int, columns: list[str], rows: list[list[Any]], parent: int) -> dict[str, Any]:
    """The terminal answer tool."""
    content = {"status": "submitted", "column_count": len(columns), "row_count": len(rows)}
    return tool(
        index,
        "Executor",
        "executor",
        "SUMMARIZE",
        "answer",
        {"columns": columns, "rows": rows},
        content,
        parent_step_id=parent,
    )


def listing(index: int, entries: list[str]) -> dict[str, Any]:
    """list_context by the schema specialist."""
    content = {"root": "/input/context", "entries": [{"path": p, "kind": "file", "size": 10} for p in entries]}
    return tool(
        index,
        "SchemaAgent",
        "schema_specialist",
        "UNDERSTAND",
        "list_context",
        {"max_depth": 3},
        content,
        specialist_selected="schema",
        parent_step_id=1,
    )


def trace_1() -> dict[str, Any]:
    """First-try success."""
    steps = [
        coordinator(1, "UNDERSTAND", "UNDERSTANDING", "PROCEED", 0.9),
        listing(2, ["csv/orders.csv", "knowledge.md"]),
        tool(
            3,
            "SchemaAgent",
            "schema_specialist",
            "UNDERSTAND",
            "read_csv",
            {"path": "csv/orders.csv"},
            {
                "path": "csv/orders.csv",
                "columns": ["order_id", "customer_id", "amount", "order_date"],
                "rows": [],
                "row_count": 3,
            },
            specialist_selected="schema",
            parent_step_id=1,
        ),
        tool(
            4,
            "DomainAgent",
            "domain_specialist",
            "UNDERSTAND",
            "read_doc",
            {"path": "knowledge.md"},
            {"path": "knowledge.md", "preview": "Revenue is the sum of amount.", "truncated": False},
            specialist_selected="domain",
            parent_step_id=1,
        ),
        step(5, "Planner", "planner", "PLAN", "plan", parent_step_id=1, thought="Sum amount for 2024 orders."),
        coordinator(6, "PLAN", "PLANNING", "PROCEED", 0.9, parent=5),
        tool(
            7,
            "Executor",
            "executor",
            "EXECUTE",
            "execute_python",
            {"code": "..."},
            {"success": True, "output": "1234.5\n", "stderr": ""},
            parent_step_id=6,
            duration_seconds=2.0,
        ),
        step(
            8,
            "Verifier",
            "verifier",
            "VERIFY",
            "verify",
            verification_status="passed",
            confidence=0.9,
            parent_step_id=7,
        ),
        coordinator(9, "VERIFY", "VERIFICATION", "APPROVE_FINAL", 0.9, parent=8),
        answer(10, ["revenue_2024"], [[1234.5]], parent=9),
    ]
    return rich(
        "task_1",
        steps,
        [["revenue_2024"], [1234.5]],
        14.0,
        decision="APPROVE_FINAL",
        plans=1,
        attempts=1,
        confidence=0.9,
        docs=False,
        explanation=0.8,
    )


def trace_2(final_rows: list[list[Any]]) -> dict[str, Any]:
    """A replan after a failed execution, a wrong draft answer, a retry, then the right answer."""
    steps = [
        coordinator(1, "UNDERSTAND", "UNDERSTANDING", "PROCEED", 0.7),
        listing(2, ["csv/orders.csv", "json/customers.json", "doc/policy.md", "knowledge.md"]),
        tool(
            3,
            "SchemaAgent",
            "schema_specialist",
            "UNDERSTAND",
            "read_json",
            {"path": "json/customers.json"},
            {"path": "json/customers.json", "preview": "{...}", "truncated": False},
            specialist_selected="schema",
            parent_step_id=1,
        ),
        tool(
            4,
            "DocumentAgent",
            "document_specialist",
            "UNDERSTAND",
            "read_doc",
            {"path": "doc/policy.md"},
            {"path": "doc/policy.md", "preview": "# Policy", "truncated": False},
            specialist_selected="document",
            parent_step_id=1,
        ),
        step(5, "Planner", "planner", "PLAN", "plan", parent_step_id=1),
        tool(
            6,
            "Executor",
            "executor",
            "EXECUTE",
            "execute_python",
            {"code": "df['region']"},
            "KeyError: 'region'",
            ok=False,
            parent_step_id=5,
        ),
        step(
            7,
            "Verifier",
            "verifier",
            "VERIFY",
            "verify",
            verification_status="failed",
            confidence=0.2,
            parent_step_id=6,
        ),
        coordinator(8, "VERIFY", "VERIFICATION", "REPLAN", 0.4, parent=7),
        step(9, "Planner", "planner", "PLAN", "plan", parent_step_id=8, retries=1),
        tool(
            10,
            "Executor",
            "executor",
            "EXECUTE",
            "execute_python",
            {"code": "groupby('area')"},
            {"success": True, "output": "N 3\nS 3\n", "stderr": ""},
            parent_step_id=9,
        ),
        answer(11, ["region", "customers"], [["North", 3], ["South", 3]], parent=10),
        step(
            12,
            "Verifier",
            "verifier",
            "VERIFY",
            "verify",
            verification_status="failed",
            confidence=0.5,
            parent_step_id=11,
        ),
        coordinator(13, "VERIFY", "VERIFICATION", "RETRY_EXECUTION", 0.5, parent=12),
        tool(
            14,
            "Executor",
            "executor",
            "EXECUTE",
            "execute_python",
            {"code": "filter status == 'A'"},
            {"success": True, "output": "N 3\nS 2\n", "stderr": ""},
            parent_step_id=13,
        ),
        step(
            15,
            "Critic",
            "critic",
            "VERIFY",
            "critique",
            review_type="critic",
            verification_status="passed",
            parent_step_id=14,
        ),
        step(
            16,
            "Verifier",
            "verifier",
            "VERIFY",
            "verify",
            verification_status="passed",
            confidence=0.8,
            parent_step_id=15,
        ),
        coordinator(17, "VERIFY", "VERIFICATION", "APPROVE_FINAL", 0.8, parent=16),
        answer(18, ["region", "customers"], final_rows, parent=17),
    ]
    return rich(
        "task_2",
        steps,
        [["region", "customers"], *final_rows],
        41.5,
        decision="APPROVE_FINAL",
        plans=2,
        attempts=2,
        confidence=0.8,
        docs=True,
        explanation=0.7,
    )


def trace_3() -> dict[str, Any]:
    """Failed tool calls, a rejected result and a timeout before the replan ran."""
    steps = [
        coordinator(1, "UNDERSTAND", "UNDERSTANDING", "PROCEED", 0.6),
        listing(2, ["csv/sales.csv", "knowledge.md"]),
        tool(
            3,
            "SchemaAgent",
            "schema_specialist",
            "UNDERSTAND",
            "read_csv",
            {"path": "csv/sale.csv"},
            "FileNotFoundError: csv/sale.csv",
            ok=False,
            specialist_selected="schema",
            parent_step_id=1,
        ),
        step(4, "Planner", "planner", "PLAN", "plan", parent_step_id=1),
        tool(
            5,
            "Executor",
            "executor",
            "EXECUTE",
            "execute_python",
            {"code": "max(units)"},
            "TypeError: unsupported operand",
            ok=False,
            parent_step_id=4,
        ),
        tool(
            6,
            "Executor",
            "executor",
            "EXECUTE",
            "execute_python",
            {"code": "max(units) again"},
            "TypeError: unsupported operand",
            ok=False,
            parent_step_id=5,
            retries=1,
        ),
        step(
            7,
            "Verifier",
            "verifier",
            "VERIFY",
            "verify",
            verification_status="failed",
            confidence=0.3,
            parent_step_id=6,
        ),
        coordinator(8, "VERIFY", "VERIFICATION", "REPLAN", 0.3, parent=7),
    ]
    trace = rich(
        "task_3",
        steps,
        None,
        600.0,
        decision="REPLAN",
        plans=1,
        attempts=2,
        confidence=0.3,
        docs=False,
        explanation=None,
    )
    trace["failure_reason"] = "Task timed out after 600 seconds."
    trace["succeeded"] = False
    return trace


def rich(
    task_id: str,
    steps: list[dict[str, Any]],
    table: list[list[Any]] | None,
    elapsed: float,
    *,
    decision: str,
    plans: int,
    attempts: int,
    confidence: float,
    docs: bool,
    explanation: float | None,
) -> dict[str, Any]:
    """A whole rich trace document."""
    trace: dict[str, Any] = {
        "trace_format": "tracegrade.dabench.rich",
        "trace_version": "1.0",
        "task_id": task_id,
        "answer": None if table is None else {"columns": table[0], "rows": table[1:]},
        "steps": steps,
        "failure_reason": None,
        "succeeded": table is not None,
        "e2e_elapsed_seconds": elapsed,
        "coordinator_final_decision": decision,
        "plan_attempts": plans,
        "execution_attempts": attempts,
        "confidence_score": confidence,
        "documents_required": docs,
    }
    if explanation is not None:
        trace["explanation_quality_score"] = explanation
    return trace


def write_csv(path: Path, rows: list[list[Any]]) -> None:
    """A CSV written like the official runner (csv module, CRLF)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)


def write_json(path: Path, obj: Any) -> None:
    """Indented JSON plus newline, like the official runner."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    """Write data/ and runs/demo-run/."""
    for task_id, spec in TASKS.items():
        write_json(
            HERE / "data/input" / task_id / "task.json",
            {"task_id": task_id, "difficulty": spec["difficulty"], "question": spec["question"]},
        )
        for name, text in spec["context"].items():
            (HERE / "data/input" / task_id / "context" / name).parent.mkdir(parents=True, exist_ok=True)
            (HERE / "data/input" / task_id / "context" / name).write_text(text, encoding="utf-8")
        (HERE / "data/input" / task_id / "context/knowledge.md").write_text(
            "# Knowledge\nAmounts are in EUR.\n", encoding="utf-8"
        )
        write_csv(HERE / "data/output" / task_id / "gold.csv", spec["gold"])
    run = HERE / "runs" / RUN_ID
    final_2 = [["North", 3], ["South", 2]]
    traces = {"task_1": trace_1(), "task_2": trace_2(final_2), "task_3": trace_3()}
    entries = []
    for task_id, trace in traces.items():
        write_json(run / task_id / "trace.json", trace)
        prediction = None
        if trace["answer"] is not None:
            prediction = run / task_id / "prediction.csv"
            write_csv(prediction, [trace["answer"]["columns"], *trace["answer"]["rows"]])
        entries.append(
            {
                "task_id": task_id,
                "task_output_dir": f"/runs/{RUN_ID}/{task_id}",
                "prediction_csv_path": None if prediction is None else f"/runs/{RUN_ID}/{task_id}/prediction.csv",
                "trace_path": f"/runs/{RUN_ID}/{task_id}/trace.json",
                "succeeded": trace["succeeded"],
                "failure_reason": trace["failure_reason"],
            }
        )
    write_json(run / "task_2" / "trace_r2.json", trace_2(final_2))
    summary = {"run_id": RUN_ID, "task_count": 3, "succeeded_task_count": 2, "max_workers": 1, "tasks": entries}
    write_json(run / "summary.json", summary)


if __name__ == "__main__":
    main()
