from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.atif.importing.test_otel import assert_valid
from tests.conftest import EXAMPLES, unavailable
from tracegrade.atif.importing._inspect import MAX_MEMBER_BYTES, check_archive, import_inspect
from tracegrade.errors import InputError

LOGS = ("traces", "inspect-ai", "inspect_ai")


@pytest.fixture(autouse=True)
def _inspect_ai() -> None:
    if importlib.util.find_spec("inspect_ai") is None:
        unavailable("inspect_ai is not installed (pip install 'tracegrade[inspect]')")


def imported(path: Path, out: Path) -> dict[str, dict[str, Any]]:
    result = import_inspect([path], out)
    return {p.stem: orjson.loads(p.read_bytes()) for p in result.trajectories}


def test_the_example_log_becomes_one_trajectory_with_usage_scores_and_target(tmp_path: Path) -> None:
    ((name, document),) = imported(EXAMPLES / "traces" / "inspect-log.json", tmp_path).items()
    assert name == "inspect-log-miles-to-km-epoch1"
    steps = document["steps"]
    assert [(s["source"], s["message"]) for s in steps] == [
        ("system", "You convert units. Always use the convert tool; never do the arithmetic yourself."),
        ("user", "How many kilometres is 6.2 miles? Answer with the number and unit."),
        ("agent", ""), ("agent", "6.2 miles is about 9.98 km (10 km).")]
    assert steps[2]["tool_calls"][0]["arguments"] == {"value": 6.2, "from_unit": "mile", "to_unit": "km"}
    assert steps[2]["observation"]["results"] == [{"source_call_id": "call_convert_1", "content": "9.978 km"}]
    assert steps[2]["metrics"] == {"prompt_tokens": 96, "completion_tokens": 24}
    assert steps[3]["timestamp"] == "2026-03-01T09:00:02+00:00"
    assert document["extra"]["reference"] == "10 km"
    assert document["extra"]["inspect"]["scores"] == {"includes": {
        "value": "C", "answer": "6.2 miles is about 9.98 km (10 km).",
        "explanation": "The target 10 km appears in the answer."}}
    assert document["agent"] == {"name": "unit_conversion", "version": "1", "model_name": "openai/gpt-4o-mini"}
    assert_valid(document)


@pytest.mark.parametrize(
    ("log", "samples", "steps", "tool_calls"),
    [
        ("2025-05-12T20-27-36-04-00_browser.json", 1, 6, 4),
        ("2025-05-12T20-28-13-04-00_popularity.json", 3, 3, 0),
        ("2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json", 1, 3, 0),
        ("2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval", 10, 3, 0),
        ("log_message_deduplication.eval", 1, 7, 5),
        ("log_tool_call_error.json", 1, 11, 11),
        ("mmlu-summary-choices.eval", 1, 2, 0),
    ],
)
def test_every_real_log_imports(shared_corpus: Path, tmp_path: Path, log: str, samples: int, steps: int,
                                tool_calls: int) -> None:
    documents = imported(shared_corpus.joinpath(*LOGS, log), tmp_path)
    assert len(documents) == samples
    for document in documents.values():
        assert_valid(document)
        assert len(document["steps"]) == steps
        assert sum(len(s.get("tool_calls", ())) for s in document["steps"]) == tool_calls
        calls = [c["tool_call_id"] for s in document["steps"] for c in s.get("tool_calls", ())]
        answered = [r["source_call_id"] for s in document["steps"] for r in s.get("observation", {}).get("results", ())]
        assert sorted(calls) == sorted(answered)


def test_usage_of_each_model_event_lands_on_its_message(shared_corpus: Path, tmp_path: Path) -> None:
    (document,) = imported(shared_corpus.joinpath(*LOGS, "2025-05-12T20-27-36-04-00_browser.json"), tmp_path).values()
    prompts = [s["metrics"]["prompt_tokens"] for s in document["steps"] if "metrics" in s]
    assert prompts == [1124, 1568, 2732, 3896, 5915]
    assert document["extra"]["inspect"]["scores"]["includes"]["value"] == "C"


def test_tool_errors_are_shown_first_and_calls_without_a_message_get_a_step(shared_corpus: Path,
                                                                           tmp_path: Path) -> None:
    result = import_inspect([shared_corpus.joinpath(*LOGS, "log_tool_call_error.json")], tmp_path)
    document = orjson.loads(result.trajectories[0].read_bytes())
    contents = [s["observation"]["results"][0]["content"] for s in document["steps"]]
    assert contents[0] == "[error: parsing: ...]\n..." and contents[1].startswith("[error: timeout: ")
    assert all(s["llm_call_count"] == 0 for s in document["steps"])
    assert result.report.files[0].notes == {"tool result without its call (a step of its own)": 11}


def test_the_sample_target_and_cancelled_status_are_kept(shared_corpus: Path, tmp_path: Path) -> None:
    documents = imported(shared_corpus.joinpath(*LOGS, "2025-05-12T20-28-13-04-00_popularity.json"), tmp_path)
    first = documents["2025-05-12T20-28-13-04-00_popularity-1-epoch1"]
    assert first["extra"]["reference"] == " Yes" and first["extra"]["inspect"]["status"] == "cancelled"


def test_events_beyond_the_messages_are_counted(shared_corpus: Path, tmp_path: Path) -> None:
    result = import_inspect([shared_corpus.joinpath(*LOGS, "2025-05-12T20-27-36-04-00_browser.json")], tmp_path)
    assert result.report.files[0].not_mapped == {"Inspect event 'sandbox'": 10, "Inspect event 'store'": 4,
                                                 "Inspect event 'state'": 2}


def test_a_file_that_is_not_an_inspect_log_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"hello": 1}')
    with pytest.raises(InputError, match=r"bad\.json: not a readable Inspect AI log"):
        import_inspect([path], tmp_path / "out")


def test_without_inspect_ai_the_import_says_how_to_install_it(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['inspect_ai'] = None\n"
            "from tracegrade.cli._app import app, run_app\n"
            f"sys.exit(run_app(app, ['import', 'inspect', {str(EXAMPLES / 'traces' / 'inspect-log.json')!r}, "
            f"'-o', {str(tmp_path / 'out')!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 3
    assert "pip install 'tracegrade[inspect]'" in done.stderr


def _example_log_with(tmp_path: Path, change: Any) -> Path:
    """The example log changed by ``change(log)``, written under ``tmp_path`` (a self-written input)."""
    log = orjson.loads((EXAMPLES / "traces" / "inspect-log.json").read_bytes())
    change(log)
    path = tmp_path / "changed.json"
    path.write_bytes(orjson.dumps(log))
    return path


def test_tool_errors_lead_the_observation_and_a_result_without_its_call_is_a_step(tmp_path: Path) -> None:
    def change(log: dict[str, Any]) -> None:
        messages = log["samples"][0]["messages"]
        messages[3]["error"] = {"type": "timeout", "message": "no answer in 30 s"}
        messages.insert(4, {"id": "msg-orphan", "role": "tool", "content": "", "tool_call_id": "call_lost",
                            "function": "convert", "error": {"type": "parsing", "message": "bad arguments"}})

    result = import_inspect([_example_log_with(tmp_path, change)], tmp_path / "out")
    steps = orjson.loads(result.trajectories[0].read_bytes())["steps"]
    assert steps[2]["observation"]["results"][0]["content"] == "[error: timeout: no answer in 30 s]\n9.978 km"
    orphan = steps[3]
    assert orphan["observation"]["results"][0]["content"] == "[error: parsing: bad arguments]"
    assert orphan["llm_call_count"] == 0 and orphan["tool_calls"][0]["tool_call_id"] == "call_lost"
    assert result.report.files[0].notes == {"tool result without its call (a step of its own)": 1}


def test_a_cancelled_log_keeps_its_status_and_unmapped_events_are_counted(tmp_path: Path) -> None:
    def change(log: dict[str, Any]) -> None:
        log["status"] = "cancelled"
        log["samples"][0]["events"].append({"timestamp": "2026-03-01T09:00:03+00:00", "working_start": 2.0,
                                             "event": "info", "data": "a note"})

    result = import_inspect([_example_log_with(tmp_path, change)], tmp_path / "out")
    document = orjson.loads(result.trajectories[0].read_bytes())
    assert document["extra"]["inspect"]["status"] == "cancelled" and document["extra"]["reference"] == "10 km"
    assert result.report.files[0].not_mapped == {"Inspect event 'info'": 1}


def test_an_assistant_message_without_an_id_keeps_its_model_event(tmp_path: Path) -> None:
    def change(log: dict[str, Any]) -> None:
        sample = log["samples"][0]
        for message in sample["messages"]:
            message.pop("id", None)
        for event in sample["events"]:
            if event["event"] == "model":
                event["output"]["choices"][0]["message"].pop("id", None)

    document = orjson.loads(import_inspect([_example_log_with(tmp_path, change)],
                                           tmp_path / "out").trajectories[0].read_bytes())
    first, answer = document["steps"][2], document["steps"][3]
    assert first["metrics"] == {"prompt_tokens": 96, "completion_tokens": 24} and first["llm_call_count"] == 1
    assert answer["timestamp"] == "2026-03-01T09:00:02+00:00" and answer["llm_call_count"] == 1
    assert "metrics" in answer


def test_a_second_result_for_one_call_id_is_not_folded_into_that_calls_step(tmp_path: Path) -> None:
    def change(log: dict[str, Any]) -> None:
        messages = log["samples"][0]["messages"]
        messages.insert(4, {**messages[3], "id": "msg-tool-again", "content": "9.98 km (retried)"})

    result = import_inspect([_example_log_with(tmp_path, change)], tmp_path / "out")
    steps = orjson.loads(result.trajectories[0].read_bytes())["steps"]
    assert steps[2]["observation"]["results"] == [{"source_call_id": "call_convert_1", "content": "9.978 km"}]
    again = steps[3]
    assert again["observation"]["results"][0]["content"] == "9.98 km (retried)" and again["llm_call_count"] == 0
    assert result.report.files[0].notes == {"tool result without its call (a step of its own)": 1}


def _archive(path: Path, size: int) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", b"{}")
        archive.writestr("samples/1_epoch_1.json", b"0" * size)
    return path


def test_an_eval_member_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = _archive(tmp_path / "big.eval", 3 << 20)
    with pytest.raises(InputError, match=r"big\.eval: member 'samples/1_epoch_1\.json' declares 3145728 bytes, over "
                                         r"the limit of 1048576 bytes per member"):
        import_inspect([path], tmp_path / "out", member_limit=1 << 20)
    assert not (tmp_path / "out" / "trajectories").exists()  # nothing imported


def test_an_eval_member_whose_declared_size_lies_is_refused_cleanly(tmp_path: Path) -> None:
    path = _archive(tmp_path / "lying.eval", 3 << 20)
    data = bytearray(path.read_bytes())
    entry = data.rfind(b"PK\x01\x02")  # the central directory entry of the big member (written last)
    data[entry + 24:entry + 28] = (100).to_bytes(4, "little")  # uncompressed size: 100 bytes, it says
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"lying\.eval: ") as caught:
        check_archive(path, 1 << 20)
    assert "\n" not in caught.value.message
    with pytest.raises(InputError, match=r"lying\.eval: "):
        import_inspect([path], tmp_path / "out", member_limit=1 << 20)


def test_the_member_limit_is_documented_and_a_member_under_it_passes(tmp_path: Path) -> None:
    assert MAX_MEMBER_BYTES == 1 << 30
    check_archive(_archive(tmp_path / "small.eval", 1000), 1 << 20)
