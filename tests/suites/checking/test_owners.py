from __future__ import annotations

from tracegrade.suites.checking._owners import invocations, owner_status, read_usage


def test_invocation_paths_cover_attempts_and_nested_collection_items() -> None:
    item = {"id": "i0", "flow": "child", "status": "needs_review", "steps": {
        "pick": {"status": "needs_review", "selection": {"category": {"id": "x"}, "origin": "fallback"}}}}
    result = {"flows": {
        "a/b": {"status": "completed", "attempts": [{"status": "failed", "steps": {}},
                                                    {"status": "completed", "steps": {}}], "steps": {}},
        "fan": {"status": "completed", "steps": {"each": {"status": "completed", "kind": "flow_collection",
                                                          "result": {"items": [item, dict(item, id="i1")]}}}}}}
    found = [(i.flow, i.step, i.invocation_path, i.status, i.origin) for i in invocations(result)]
    assert found == [
        ("a/b", None, "/flows/a~1b/attempts/0", "failed", None),
        ("a/b", None, "/flows/a~1b/attempts/1", "completed", None),
        ("fan", None, "/flows/fan", "completed", None),
        ("fan", "each", "/flows/fan/steps/each", "completed", None),
        ("child", None, "/flows/fan/steps/each/result/items/0", "needs_review", None),
        ("child", "pick", "/flows/fan/steps/each/result/items/0/steps/pick", "needs_review", "fallback"),
        ("child", None, "/flows/fan/steps/each/result/items/1", "needs_review", None),
        ("child", "pick", "/flows/fan/steps/each/result/items/1/steps/pick", "needs_review", "fallback"),
    ]


def test_owner_falls_back_to_the_workflow_status() -> None:
    result = {"payload": {}, "execution": {"status": "failed"}}
    assert owner_status(result, ("payload", "x")) == "failed"
    assert owner_status({"payload": {}}, ("payload", "x")) is None
    assert owner_status({"flows": {"f": {"status": "skipped"}}, "execution": {"status": "completed"}},
                        ("flows", "f", "steps", "s", "result")) == "skipped"


def test_usage_keeps_unknown_counts_unknown() -> None:
    usage = read_usage({"model_requests": 2, "input_tokens": None, "output_tokens": -1, "tool_calls": True})
    assert usage is not None
    assert (usage["model_requests"], usage["input_tokens"], usage["output_tokens"], usage["tool_calls"]) == \
        (2, None, None, None)
    assert read_usage("n/a") is None
