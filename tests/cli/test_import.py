from __future__ import annotations

import re
import shlex
from pathlib import Path

import orjson
import pytest

from tests.atif.importing.test_whowhen import ALGORITHM, write_logs
from tests.atif.scripted import judge_server  # noqa: F401  (the marker-reading scripted judge, a fixture)
from tests.conftest import EXAMPLES, REPO, unavailable
from tests.integrations.servers import recording_server, url_of
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer


def test_import_whowhen_writes_trajectories_and_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = write_logs(tmp_path / "logs")
    assert run_app(app, ["import", "whowhen", str(logs), "-o", str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in (tmp_path / "out" / "trajectories").iterdir()) == [
        "Algorithm-Generated-1.json",
        "Hand-Crafted-1.json",
    ]
    assert len((tmp_path / "out" / "labels.jsonl").read_text().splitlines()) == 4
    assert "imported 2 logs" in capsys.readouterr().out


def test_import_whowhen_bad_log_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(orjson.dumps({**ALGORITHM, "mistake_step": 40}))
    assert run_app(app, ["import", "whowhen", str(path), "-o", str(tmp_path / "out")]) == 2
    assert f"{path}: mistake_step" in capsys.readouterr().err


def test_import_otel_writes_trajectories_that_validate_without_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    traces = EXAMPLES / "traces"
    out = tmp_path / "out"
    assert run_app(app, ["import", "otel", str(traces / "otel-genai.json"), str(traces / "openinference.jsonl"),
                         "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "imported 2 traces" in printed and "13 steps, 4 tool calls, 1 sub-agent trajectory)" in printed
    assert run_app(app, ["validate", str(out / "trajectories"), "--format", "json"]) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert report["valid"] and all(f["warnings"] == [] for f in report["files"]) and len(report["files"]) == 2


def test_import_otel_of_the_whole_corpus_validates(shared_corpus: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    traces = shared_corpus / "traces"
    assert run_app(app, ["import", "otel", str(traces / "otel-genai"), str(traces / "openinference"), "-o",
                         str(tmp_path), "-q"]) == 0
    assert run_app(app, ["validate", str(tmp_path / "trajectories"), "--format", "json"]) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert len(report["files"]) == 10 and all(f["valid"] and f["warnings"] == [] for f in report["files"])


def test_import_otel_malformed_input_exits_2_naming_file_and_place(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "nope"}]}]}]}))
    assert run_app(app, ["import", "otel", str(path), "-o", str(tmp_path / "out")]) == 2
    assert f"{path}: /resourceSpans/0/scopeSpans/0/spans/0/traceId: expected 32 hex digits" in capsys.readouterr().err


def test_import_inspect_writes_one_trajectory_per_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    if importlib.util.find_spec("inspect_ai") is None:
        unavailable("inspect_ai is not installed (pip install 'tracegrade[inspect]')")
    out = tmp_path / "out"
    assert run_app(app, ["import", "inspect", str(EXAMPLES / "traces" / "inspect-log.json"), "-o", str(out)]) == 0
    assert "imported 1 sample -> " in capsys.readouterr().out
    assert run_app(app, ["validate", str(out / "trajectories")]) == 0


def readme_commands(title: str) -> list[list[str]]:
    """The commands of every bash block in the README section called ``title``, as written (comments dropped)."""
    text = (REPO / "README.md").read_text().replace("\\\n", " ")  # continuation lines joined
    section = text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    lines = [line.split("#", 1)[0].strip() for block in re.findall(r"```bash\n(.*?)```", section, re.S)
             for line in block.splitlines()]
    return [shlex.split(line) for line in lines if line]


def test_the_readme_import_examples_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   judge_server: ScriptedJudgeServer) -> None:  # noqa: F811
    """Each importer's README example, copied as it is, against a scripted judge and an OTLP receiver.

    tests/test_readme.py runs these blocks in a shell too, except the export one, which needs a collector.
    """
    import importlib.util

    if importlib.util.find_spec("inspect_ai") is None:
        unavailable("inspect_ai is not installed (pip install 'tracegrade[inspect]')")
    commands = readme_commands("Judging the traces you have")
    judged = [c for c in commands if c[:2] == ["tracegrade", "judge"]]
    assert len(judged) == 4 and all(c[c.index("--judge-url") + 1] == "$JUDGE_URL" for c in judged)
    (tmp_path / "examples").symlink_to(EXAMPLES)
    monkeypatch.chdir(tmp_path)
    with recording_server() as receiver:
        for command in commands:
            if command[0] == "pip":
                continue
            if command[0] == "export":
                monkeypatch.setenv(command[1].split("=", 1)[0], url_of(receiver))
                continue
            args = command[1:]
            if args[0] == "judge":
                values = {"$JUDGE_URL": judge_server.base_url, "$JUDGE_MODEL": "m"}
                args = [values.get(arg, arg) for arg in args] + ["--no-cache", "-q"]
            assert run_app(app, args) == 0, command
    events = [path for path, _ in receiver.posts if path == "/v1/logs"]
    assert len(events) >= 2  # the judge's --otel-evaluations and the later export
    for name in ("results/otel", "results/openinference", "results/inspect", "results/otel-exported"):
        assert (tmp_path / name / "evaluation_results.json").is_file()


def test_one_imported_log_is_counted_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = write_logs(tmp_path / "logs")
    first = sorted(logs.rglob("*.json"))[0]
    assert run_app(app, ["import", "whowhen", str(first), "-o", str(tmp_path / "out")]) == 0
    assert "imported 1 log -> " in capsys.readouterr().out


def _trace_without_a_task(path: Path) -> Path:
    """A trace as a real instrumentation records it when the app's request is not a GenAI message: the root span
    holds the user's request in its own attribute; the model calls hold only the system prompt and answers."""
    from tests.atif.importing.otlp import chat, messages, request, span, tool, tool_call

    spans = [
        span(1, None, "POST /agent", 0, {"http.route": "/agent", "app.request": "Rename the report to final.pdf"}),
        chat(2, 1, 1, messages(("system", "You are a file agent.")), tool_call("c1", "mv", {"to": "final.pdf"})),
        tool(3, 1, 2, "mv", "c1", "renamed"),
        chat(4, 1, 3, messages(("system", "You are a file agent.")), messages(("assistant", "Done."))),
    ]
    path.write_bytes(orjson.dumps(request(spans)))
    return path


def test_an_import_names_the_traces_without_a_task_and_the_option_that_maps_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _trace_without_a_task(tmp_path / "trace.json")
    assert run_app(app, ["import", "otel", str(trace), "-o", str(tmp_path / "plain")]) == 0
    out = capsys.readouterr().out
    (name,) = [t["trajectory_id"] for t in orjson.loads((tmp_path / "plain/import_report.json").read_bytes())[
        "trajectories"] if not t["task_found"]]
    assert f"no task found for 1 trajectory: {name}; judging them in auto mode is refused: map one with " \
           "--task-attribute KEY" in out
    from tests.atif.scripted import marker_rule

    with ScriptedJudgeServer(marker_rule) as server:
        code = run_app(app, ["judge", str(tmp_path / "plain/trajectories"), "--judge-url", server.base_url,
                             "--judge-model", "m", "--no-cache", "-q", "-o", str(tmp_path / "run")])
        assert code == 2 and server.count == 0  # refused before any call, naming the file
    assert f"have no task, so auto mode cannot derive their criteria (no judge call was made): {name}.json" in \
        capsys.readouterr().err
    assert run_app(app, ["import", "otel", str(trace), "-o", str(tmp_path / "mapped"), "--task-attribute",
                         "app.request"]) == 0
    report = orjson.loads((tmp_path / "mapped/import_report.json").read_bytes())
    assert [t["task_found"] for t in report["trajectories"]] == [True]
    document = orjson.loads(next((tmp_path / "mapped/trajectories").iterdir()).read_bytes())
    assert document["extra"]["task_instruction"] == "Rename the report to final.pdf"
    assert "no task found" not in capsys.readouterr().out
