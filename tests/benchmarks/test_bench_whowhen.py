"""benchmarks/bench_whowhen.py end to end on a few Who&When logs with the scripted judge (it works; no quality)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import orjson
import pytest

from tests.atif.localising.plant import enum_first_rule, first_rule, hand_crafted
from tests.conftest import require_local_judge
from tracegrade.judge.testing import ScriptedJudgeServer

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_whowhen.py"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_whowhen", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_whowhen"] = module
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_prints_the_papers_table_beside_the_published_figures(
    shared_corpus: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["--limit", "3", "--data", str(shared_corpus / "whowhen"), "--cache", str(tmp_path / "cache.sqlite")]
    with ScriptedJudgeServer(first_rule) as server:
        code = bench().main(["--judge-url", server.base_url, "--judge-model", "scripted", *argv])
        served = server.count
        out = capsys.readouterr().out
        again = bench().main(["--judge-url", server.base_url, "--judge-model", "scripted", *argv])
        assert again == 0 and server.count == served  # the rerun is answered from the cache
    cached = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Binary search")]
    assert all(int(row.split()[-6]) == int(row.split()[-5]) > 0 for row in cached)  # every call from the cache
    assert code == 0 and "Who&When Algorithm-Generated: 3 logs, judge scripted" in out
    rows = [line for line in out.splitlines() if line.startswith(("All-at-once", "Step-by-step", "Binary search"))]
    assert [(row[:15].strip(), row[15:20].strip()) for row in rows] == [
        ("All-at-once", "no"), ("All-at-once", "yes"), ("Step-by-step", "no"), ("Step-by-step", "yes"),
        ("Binary search", "no"), ("Binary search", "yes"),
    ]
    assert all("(3)" in row for row in rows)  # each strategy scored on the 3 labelled logs
    assert "14.2" in out and "47.46" in out and "53.5" in out  # the published figures beside ours
    assert all(row.split()[-5] == "0" for row in rows)  # nothing cached on the first run
    calls = sum(int(row.split()[-6]) for row in rows)
    assert calls == served > 0  # every judge question is counted in the table


def test_a_missing_subset_is_one_clear_line(shared_corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = bench().main(["--judge-url", "http://127.0.0.1:9", "--judge-model", "m", "--subset", "hand",
                         "--data", str(shared_corpus / "whowhen")])
    assert code == 2 and "Hand-Crafted: not there" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.local_judge
def test_the_benchmark_runs_every_strategy_through_the_local_judge(
    shared_corpus: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The smoke test the issue asks for: one short log, every strategy, the bundled judge (no quality figure)."""
    require_local_judge()
    subset = tmp_path / "data" / "Algorithm-Generated"
    subset.mkdir(parents=True)
    (subset / "47.json").symlink_to(shared_corpus / "whowhen" / "Algorithm-Generated" / "47.json")
    code = bench().main(["--judge", "local", "--data", str(subset.parent), "--ground-truth", "without",
                         "--cache", str(tmp_path / "cache.sqlite")])
    out = capsys.readouterr().out
    assert code == 0 and "1 log, judge local (Gemma 3 270M: a smoke test" in out
    lines = [line for line in out.splitlines() if line.startswith(("All-at-once", "Step-by-step", "Binary search"))]
    assert [line[:15].strip() for line in lines] == ["All-at-once", "Step-by-step", "Binary search"]
    for line in lines:
        calls, cached, tokens, _, failed, fallbacks = line.split()[-6:]
        assert int(calls) >= 1 and cached == "0" and int(tokens.split("/")[0]) > 0  # real calls, counted
        assert fallbacks == "0"  # a short log fits the local judge's budget in one request
        # the log is either scored (n = 1 in both accuracy cells) or listed as having no usable answer
        assert line.count("(1)") == 2 if failed == "0" else (failed == "1" and "(n=0)" in line)


def test_the_benchmark_names_the_agents_of_hand_crafted_logs(capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path) -> None:
    """Hand-crafted logs name their speakers in ``role``: the agents are candidates, the user's turn is not."""
    subset = tmp_path / "data" / "Hand-Crafted"
    subset.mkdir(parents=True)
    for number, (step, agent) in enumerate([(1, "Orchestrator"), (1, "Orchestrator"), (3, "WebSurfer")], start=1):
        (subset / f"{number}.json").write_bytes(orjson.dumps(hand_crafted(step, agent, question_ID=f"hc-{number}")))
    with ScriptedJudgeServer(enum_first_rule) as server:
        code = bench().main(["--judge-url", server.base_url, "--judge-model", "scripted", "--subset", "hand",
                             "--data", str(subset.parent), "--strategies", "all-at-once,step-by-step",
                             "--ground-truth", "without"])
    out = capsys.readouterr().out
    assert code == 0 and "Who&When Hand-Crafted: 3 logs" in out
    rows = [line for line in out.splitlines() if line.startswith(("All-at-once", "Step-by-step"))]
    assert len(rows) == 2 and all(row.count("66.7") == 2 and row.count("(3)") == 2 for row in rows), out
