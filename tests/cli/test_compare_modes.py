"""``tracegrade compare --judges`` on the command line: exit codes and files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.atif.output.comparing import judged, trajectory
from tests.atif.output.test_judges import two_judges
from tests.atif.scripted import cue_rule
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer


def test_judges_mode_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = {f"t{i}.json": trajectory(f"task {i} SCORE:0.8", f"SCORE:0.{i + 2}") for i in range(4)}
    with ScriptedJudgeServer(two_judges) as server:
        a = judged(server, tmp_path / "a", docs, model="judge-a")
        b = judged(server, tmp_path / "b", docs, model="judge-b")
        fewer = judged(server, tmp_path / "c", {"t0.json": docs["t0.json"]}, model="judge-b")
    out = tmp_path / "out"
    assert run_app(app, ["compare", str(a), str(b), "--judges", "-o", str(out), "--resamples", "50"]) == 0
    assert (out / "comparison.json").exists() and "pass/fail kappa" in capsys.readouterr().out
    assert run_app(app, ["compare", str(a), str(b), "--judges", "--fail-on-disagreement", "1.0",
                         "--resamples", "50"]) in (0, 1)
    assert run_app(app, ["compare", str(a), str(fewer), "--judges"]) == 2
    assert "only in run A" in capsys.readouterr().err
    assert run_app(app, ["compare", str(a), str(b)]) == 2  # the normal mode still refuses another judge
    assert run_app(app, ["compare", str(a), str(b), "--fail-on-disagreement", "0.5"]) == 2


def test_pairwise_mode_on_the_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    out = tmp_path / "out"
    with ScriptedJudgeServer(cue_rule) as server:
        args = ["compare", str(examples / "atif"), str(examples / "atif-regressed"), "--pairwise",
                "--judge-url", server.base_url, "--judge-model", "scripted", "--cache", str(tmp_path / "c.sqlite"),
                "--concurrency-limit", "2", "-o", str(out)]
        assert run_app(app, args) == 0
        assert "candidate wins 0, ties 0, losses 2" in capsys.readouterr().out
        assert run_app(app, [*args, "--fail-on-new-failures"]) == 1
        assert server.count == 4  # the second run read every answer from the cache
    assert (out / "comparison.html").exists() and (out / "manifest.json").exists()
    assert run_app(app, ["compare", str(examples / "atif"), str(examples / "atif-regressed"), "--pairwise"]) == 2


def test_pairwise_exits_4_when_no_pair_got_an_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tracegrade.judge.testing import ScriptedReply

    examples = Path(__file__).resolve().parents[2] / "examples"
    with ScriptedJudgeServer(lambda request: ScriptedReply.error(500)) as server:
        code = run_app(app, ["compare", str(examples / "atif"), str(examples / "atif-regressed"), "--pairwise",
                             "--judge-url", server.base_url, "--judge-model", "scripted", "--no-cache",
                             "--judge-max-attempts", "1"])
    assert code == 4 and "errors 2" in capsys.readouterr().out


def test_modes_that_do_not_mix_are_refused(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    assert run_app(app, ["compare", str(examples / "atif"), str(examples / "atif"), "--pairwise", "--judges"]) == 2
    assert run_app(app, ["compare", str(examples / "atif"), str(examples / "atif"), "--judges", "--mlflow"]) == 2
