"""A scripted panel of three judges with planted behaviours, through ``tracegrade judge --judge-panel``.

``fair`` reads the SCORE marker; ``up`` adds 0.3 (capped at 1) and always says ``reasoning_failure``; ``flaky``
answers as ``fair`` but fails (HTTP 400) on steps marked FLAKY.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.atif.scripted import current_message, is_categorizing, marker_rule, scripted_answer, trajectory, write
from tracegrade.atif.asking._panel import aggregate
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply

DOC = trajectory("task SCORE:0.8", "SCORE:0.2 CAT:context_loss FLAKY", "SCORE:0.1 CAT:context_loss")


def panel_rule(request: ReceivedRequest) -> ScriptedReply:
    body = request.json()
    prompt = body["messages"][-1]["content"]
    message = current_message(prompt)
    if body["model"] == "flaky" and "FLAKY" in message:
        return ScriptedReply.error(400)
    if body["model"] != "up":
        return marker_rule(request)
    if is_categorizing(prompt):
        return ScriptedReply.answer({"category": "reasoning_failure", "rationale": "up"})
    found = re.search(r"SCORE:([0-9.]+)", message)
    value = round(min(1.0, (float(found.group(1)) if found else 0.9) + 0.3), 6)
    return ScriptedReply.answer(scripted_answer(body, score=value))


def _panel_file(folder: Path, url: str, **extra: Any) -> Path:
    weights = {"fair": 1, "up": 2, "flaky": 1}
    judges = [{"name": name, "url": url, "model": name, "weight": weight} for name, weight in weights.items()]
    path = folder / "panel.yaml"
    path.write_bytes(orjson.dumps({"judges": judges, **extra}))  # JSON is YAML
    return path


def _judge(tmp_path: Path, server: ScriptedJudgeServer, name: str, *args: str) -> dict[str, Any]:
    inputs = tmp_path / "in"
    write(inputs / "t.json", DOC)
    out = tmp_path / name
    code = run_app(app, ["judge", str(inputs), "--judge-panel", str(_panel_file(tmp_path, server.base_url)),
                         "-o", str(out), "--no-cache", "--quiet", *args])
    assert code in (0, 1, 4), code
    return orjson.loads((out / "evaluation_results.json").read_bytes())  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def server() -> Any:
    with ScriptedJudgeServer(panel_rule) as running:
        yield running


def test_hand_computed_mean_sizes_and_contested_category(tmp_path: Path, server: ScriptedJudgeServer) -> None:
    results = _judge(tmp_path, server, "mean", "--panel-min-answers", "2")
    steps = results["nodes"][0]["steps"]
    assert [s["score"] for s in steps] == pytest.approx([(0.8 + 1.0 + 0.8) / 3, (0.2 + 0.5) / 2, (0.1 + 0.4 + 0.1) / 3])
    assert [s["panel"]["answered"] for s in steps] == [3, 2, 3]
    assert steps[1]["panel"]["failed"] == {"flaky": "http_status_400"} and steps[1]["panel"]["size"] == 3
    assert steps[1]["panel"]["scores"] == pytest.approx({"fair": 0.2, "up": 0.5})
    assert steps[1]["panel"]["spread"] == pytest.approx(0.3) and steps[1]["panel"]["straddles"] is True
    assert steps[2]["panel"]["straddles"] is False
    # step 2: fair says context_loss, up reasoning_failure, flaky failed: a tie, never broken by list order
    assert steps[1]["category"] == "contested" and steps[2]["category"] == "context_loss"
    judge = results["provenance"]["judge"]
    assert [m["name"] for m in judge["panel"]] == ["fair", "up", "flaky"] and judge["model"].startswith("panel[")
    assert judge["panel"][2]["failed_questions"] == 2  # its score and its category of step 2


def test_median_and_weighted_mean(tmp_path: Path, server: ScriptedJudgeServer) -> None:
    median = _judge(tmp_path, server, "median", "--panel-min-answers", "2", "--panel-aggregation", "median")
    assert [s["score"] for s in median["nodes"][0]["steps"]] == pytest.approx([0.8, 0.35, 0.1])
    weighted = _judge(tmp_path, server, "weighted", "--panel-min-answers", "2", "--panel-aggregation",
                      "weighted_mean")
    assert [s["score"] for s in weighted["nodes"][0]["steps"]] == pytest.approx(
        [(0.8 + 2 * 1.0 + 0.8) / 4, (0.2 + 2 * 0.5) / 3, (0.1 + 2 * 0.4 + 0.1) / 4])


def test_by_default_every_judge_must_answer(tmp_path: Path, server: ScriptedJudgeServer) -> None:
    steps = _judge(tmp_path, server, "all")["nodes"][0]["steps"]
    assert steps[1]["status"] == "failed" and steps[1]["error_code"] == "panel_too_small"
    assert steps[0]["status"] == "scored"


def test_a_panel_file_that_breaks_a_rule_is_one_line_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "panel.yaml"
    bad.write_text("judges:\n  - name: a\n    url: http://127.0.0.1:1\n    model: m\n    weight: -1\n")
    write(tmp_path / "in" / "t.json", DOC)
    assert run_app(app, ["judge", str(tmp_path / "in"), "--judge-panel", str(bad), "-o", str(tmp_path / "o")]) == 2


def test_a_panel_with_repeats_is_refused(tmp_path: Path, server: ScriptedJudgeServer) -> None:
    write(tmp_path / "in" / "t.json", DOC)
    code = run_app(app, ["judge", str(tmp_path / "in"), "--judge-panel", str(_panel_file(tmp_path, server.base_url)),
                         "--judge-repeats", "3", "-o", str(tmp_path / "o"), "--no-cache", "--quiet"])
    assert code == 2 and not (tmp_path / "o" / "manifest.json").exists()


def test_aggregates() -> None:
    assert aggregate([0.2, 0.5, 0.9], [1, 1, 1], "median") == 0.5
    assert aggregate([0.2, 0.8], [3, 1], "weighted_mean") == pytest.approx(0.35)
    assert aggregate([0.2, 0.8], [3, 1], "mean") == pytest.approx(0.5)


def test_compare_treats_the_panel_as_the_judge(tmp_path: Path, server: ScriptedJudgeServer) -> None:
    from tracegrade.atif import compare_runs
    from tracegrade.atif.output import compare_judges
    from tracegrade.errors import InputError

    _judge(tmp_path, server, "p1", "--panel-min-answers", "2")
    _judge(tmp_path, server, "p2", "--panel-min-answers", "2")
    assert compare_runs(tmp_path / "p1", tmp_path / "p2").comparison.mean_delta == 0.0
    single = tmp_path / "single"
    assert run_app(app, ["judge", str(tmp_path / "in"), "--judge-url", server.base_url, "--judge-model", "fair",
                         "-o", str(single), "--no-cache", "--quiet"]) == 0
    with pytest.raises(InputError, match=r"judge\.model differs"):
        compare_runs(tmp_path / "p1", single)
    judges = compare_judges(single, tmp_path / "p1").comparison  # the single judge against the panel
    assert str(judges.judge_b["model"]).startswith("panel[fair=fair,up=up,flaky=flaky]#") and judges.step.n == 3
