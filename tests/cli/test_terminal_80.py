"""What a user sees on an 80-column terminal (a tmux pane): progress that leaves nothing behind, notes wrapped."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.atif.scripted import judge_rule
from tests.terminal import TRACEGRADE, screen
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply, scripted_rule

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_warning_during_the_progress_bar_leaves_no_stale_bar_behind(tmp_path: Path) -> None:
    answer = scripted_rule()

    def refuse_the_schema_once(request: ReceivedRequest) -> ScriptedReply:
        if request.index == 6:  # mid-run, while the bar is drawn
            return ScriptedReply.error(400, body=b'{"error": {"message": "response_format is not supported"}}')
        return answer(request)

    with ScriptedJudgeServer(refuse_the_schema_once, latency=0.2) as server:
        lines = screen(f"{TRACEGRADE} judge {EXAMPLES / 'atif-regressed'} --judge-url {server.base_url}/v1 "
                       f"--judge-model m --concurrency-limit 2 --no-cache -o run", tmp_path)
    text = "\n".join(lines)
    assert "warning: judge server refused response_format; continuing without a JSON schema" in text, text
    assert "results: run/" in text
    assert not [line for line in lines if line.lstrip().startswith("scoring")], text  # no bar left on screen
    assert all(len(line) <= 80 for line in lines)


def test_localise_notes_wrap_whole_words_at_80_columns(tmp_path: Path) -> None:
    with ScriptedJudgeServer(scripted_rule()) as server:
        lines = screen(f"{TRACEGRADE} localise {EXAMPLES / 'atif'} --strategy all-at-once --max-context-bytes 4000 "
                       f"--judge-url {server.base_url}/v1 --judge-model m --no-cache -o loc", tmp_path)
    text = "\n".join(lines)
    assert "fallback to" in text and "binary-search" in text.split("fallback to", 1)[1], text
    assert "binary-searc" not in text.replace("binary-search", ""), text  # not cut, nor split inside the word
    assert all(len(line) <= 80 for line in lines)


def test_agree_notes_wrap_instead_of_being_cut_at_80_columns(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEGRADE_CACHE_DIR", str(tmp_path / "cache"))
    with ScriptedJudgeServer(judge_rule(score=0.9)) as server:  # every step passes: kappa has one answer
        assert run_app(app, ["judge", str(EXAMPLES / "atif"), "--judge-url", server.base_url, "--judge-model", "m",
                             "-q", "-o", str(tmp_path / "run")]) == 0
    shutil.copy(EXAMPLES / "atif-labels.jsonl", tmp_path / "labels.jsonl")
    lines = screen(f"{TRACEGRADE} agree run --labels labels.jsonl", tmp_path)
    text = "\n".join(lines)
    notes = " ".join(line[62:].strip() for line in lines if len(line) > 62)
    assert "one answer, judge: all passed" in " ".join(notes.split()), text
    assert "…" not in text, text
    assert all(len(line) <= 80 for line in lines)
