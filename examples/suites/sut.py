"""A tiny system under test for `tracegrade suite run --target-cmd`: a keyword ticket triage workflow.

It reads one attempt request (JSON) on stdin and writes one result (JSON) on stdout, shaped like a
Foliqant execution result: `payload`, `metadata`, `flows` (with step records and a decision
`selection`), `transitions` and `execution`. Deliberately imperfect so the report has something to show:

* a message naming no known topic is not answerable: the decision falls back to `technical` and the
  run ends in `needs_review`, with the `reply` flow (and its `draft` step) skipped;
* a message containing "CRASH" makes the provider fail: the run ends `failed`;
* the first matching keyword wins, so "invoice ... error" is classified as billing.
"""

from __future__ import annotations

import json
import sys

KEYWORDS = (("billing", ("charge", "refund", "invoice")), ("cancellation", ("cancel",)),
            ("technical", ("error", "crash", "bug")))
FALLBACK = "technical"


def usage(input_tokens: int | None) -> dict[str, int | None]:
    """Usage of one model request; ``None`` is a count the provider did not report."""
    return {"model_requests": 1, "tool_calls": 0, "output_retries": 0, "input_tokens": input_tokens,
            "output_tokens": 12, "cache_read_input_tokens": 0, "cache_write_input_tokens": 0,
            "reasoning_output_tokens": None}


def classify(message: str) -> dict[str, object]:
    """The `classify` decision step record: a model answer, or a fallback under review."""
    lowered = message.lower()
    label = next((name for name, words in KEYWORDS if any(w in lowered for w in words)), None)
    if label is None:
        native = {"type": "choice", "answerability": {"status": "not_answerable", "issues": ["no_topic"]},
                  "answer": None}
        return {"status": "needs_review", "elapsed_seconds": 0.2, "usage": usage(None), "result": native,
                "selection": {"category": {"id": FALLBACK}, "origin": "fallback"}}
    native = {"type": "choice", "answerability": {"status": "answerable"}, "answer": {"optionId": label}}
    return {"status": "completed", "elapsed_seconds": 0.1, "usage": usage(40), "result": native,
            "selection": {"category": {"id": label}, "origin": "model"}}


def failed(request: dict[str, object]) -> dict[str, object]:
    """The result of a run whose provider failed."""
    error = {"code": "provider_unavailable", "message": "provider unavailable", "retryable": True}
    step = {"status": "failed", "error": error}
    return {"payload": None, "metadata": request.get("metadata") or {},
            "flows": {"triage": {"status": "failed", "attempt_count": 1, "steps": {"classify": step},
                                 "error": error}},
            "transitions": [], "execution": {"id": "run", "workflow": "ticket_triage", "revision": "1",
                                             "status": "failed", "usage": usage(None), "error": error}}


def run(request: dict[str, object]) -> dict[str, object]:
    """The whole workflow: triage (classify), then reply (draft) unless the triage needs review."""
    message = str((request.get("payload") or {}).get("message", ""))  # type: ignore[union-attr]
    if "CRASH" in message:
        return failed(request)
    step = classify(message)
    review = step["status"] == "needs_review"
    category = step["selection"]["category"]["id"]  # type: ignore[index]
    triage = {"status": step["status"], "attempt_count": 1, "steps": {"classify": step},
              "result": {"category": category}}
    if review:
        reply = {"status": "skipped", "attempt_count": 0, "steps": {"draft": {"status": "skipped"}}}
    else:
        text = "We will refund the duplicate charge." if category == "billing" else f"Routed to {category}."
        reply = {"status": "completed", "attempt_count": 1, "result": {"text": text},
                 "steps": {"draft": {"status": "completed", "elapsed_seconds": 0.05, "result": {"text": text}}}}
    return {"payload": {"category": category}, "metadata": request.get("metadata") or {},
            "flows": {"triage": triage, "reply": reply},
            "transitions": [{"source": "triage", "reason": step["status"], "flow": "reply",
                             "route": {"kind": "direct"}}],
            "execution": {"id": "run", "workflow": "ticket_triage", "revision": "1",
                          "status": "needs_review" if review else "completed", "usage": step["usage"]}}


def main() -> None:
    """Read one request on stdin, write one result on stdout."""
    request = json.load(sys.stdin)
    result = run(request)
    if request.get("target_step"):  # an isolated step run: only that flow's step record
        flow = request["target_flow"]
        result = {"flows": {flow: {"status": result["flows"][flow]["status"], "attempt_count": 1,
                                   "steps": {request["target_step"]:
                                             result["flows"][flow]["steps"][request["target_step"]]}}},
                  "execution": result["execution"]}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
