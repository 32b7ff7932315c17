"""benchmarks/bench_whowhen.py end to end on a few Who&When logs with the scripted judge (it works; no quality)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.atif.localising.plant import first_rule
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
