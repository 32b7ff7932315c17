"""``tracegrade localise`` end to end: trajectories or a judge run in, localisation.json and the report out."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.atif.helpers import write
from tests.atif.localising.plant import MARK, document, plant_rule, steps
from tests.atif.scripted import marker_rule
from tests.render.html_checks import PLANTED, check_report
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply
from tracegrade.runs import read_manifest


def both(request: ReceivedRequest) -> ScriptedReply:
    """Scores steps by their SCORE:x markers, and localises from the plant."""
    return plant_rule(request) if b"<record>" in request.body else marker_rule(request)


@pytest.fixture
def server() -> Iterator[ScriptedJudgeServer]:
    with ScriptedJudgeServer(both) as running:
        yield running


@pytest.fixture
def trajectories(tmp_path: Path) -> Path:
    made = steps(8, plant=3)
    made[1]["message"] += f" {PLANTED}"  # markup in the input: escaped wherever the reports show it
    for step in made:
        low = " SCORE:0.1" if MARK in step["message"] else " SCORE:0.2"
        step["message"] += " SCORE:0.9" if step["step_id"] < 3 else low
    write(tmp_path / "in" / "failed.json", document(made, trajectory_id="failed"))
    write(tmp_path / "in" / "fine.json", document(steps(3), trajectory_id="fine"))
    return tmp_path / "in"


def judge_args(server: ScriptedJudgeServer) -> list[str]:
    return ["--judge-url", server.base_url, "--judge-model", "scripted", "--no-cache"]


@pytest.fixture
def run(server: ScriptedJudgeServer, trajectories: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    assert run_app(app, ["judge", str(trajectories), *judge_args(server), "-o", str(out), "-q",
                         "--scoring-mode", "benchmark", "--benchmark-name", "humanevalfix"]) == 0
    return out


def test_localise_a_judge_run_marks_the_decisive_step_in_its_report(
    server: ScriptedJudgeServer, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing may land in the working folder
    assert run_app(app, ["localise", str(run), *judge_args(server)]) == 0  # no -o: into the run given
    document = orjson.loads((run / "localisation.json").read_bytes())
    assert document["format"] == "tracegrade.atif.localisation/1"
    assert [t["node_id"] for t in document["trajectories"]] == ["failed.json"]  # the passed root is left alone
    assert document["trajectories"][0]["step"]["index"] == 3 and document["summary"]["not_selected"] == 1
    page = (run / "report.html").read_text()
    assert "Failure localisation" in page and page.count("decisive step</span>") == 1
    assert '<td><a href="#node-' in page.split('id="localisation-table"')[1].split("</table>")[0]
    check_report(page)  # before: the trajectory cell showed {'text': 'failed.json', 'href': '#…'}
    read_manifest(run)  # the amended manifest vouches for the rewritten report
    assert "1 localised" in capsys.readouterr().out


def _run_files(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in run.iterdir()}


def test_with_o_elsewhere_the_judge_run_is_not_touched(server: ScriptedJudgeServer, run: Path, tmp_path: Path) -> None:
    before = _run_files(run)
    assert run_app(app, ["localise", str(run), *judge_args(server), "-o", str(tmp_path / "loc"), "-q"]) == 0
    assert _run_files(run) == before
    assert orjson.loads((tmp_path / "loc" / "localisation.json").read_bytes())["summary"]["localised"] == 1
    read_manifest(tmp_path / "loc")


def test_a_failed_localisation_never_replaces_the_runs_good_one(
    server: ScriptedJudgeServer, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_app(app, ["localise", str(run), *judge_args(server), "-q"]) == 0
    good = _run_files(run)
    with ScriptedJudgeServer(marker_rule) as gone:
        dead = ["--judge-url", gone.base_url, "--judge-model", "scripted", "--no-cache", "--judge-max-attempts", "1"]
    assert run_app(app, ["localise", str(run), *dead, "-q"]) == 4  # the judge is gone: every localisation fails
    assert "keeps its own localisation.json and report.html" in capsys.readouterr().err
    kept = _run_files(run)
    incomplete = orjson.loads(kept.pop("localisation.incomplete.json"))
    assert kept == good and incomplete["summary"]["failed"] == 1  # nothing computed is lost, nothing made worse
    read_manifest(run)
    assert run_app(app, ["localise", str(run), *dead, "-o", str(tmp_path / "dead"), "-q"]) == 4
    assert {k: v for k, v in _run_files(run).items() if k != "localisation.incomplete.json"} == good
    assert orjson.loads((tmp_path / "dead" / "localisation.json").read_bytes())["summary"]["failed"] == 1
    assert run_app(app, ["localise", str(run), *judge_args(server), "-q"]) == 0  # complete again: replaces, tidies
    assert not (run / "localisation.incomplete.json").exists()


def test_from_scores_asks_nothing_and_needs_a_run(server: ScriptedJudgeServer, run: Path, trajectories: Path,
                                                  tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calls = server.count
    assert run_app(app, ["localise", str(run), "--strategy", "from-scores", "-o", str(tmp_path / "s")]) == 0
    found = orjson.loads((tmp_path / "s" / "localisation.json").read_bytes())["trajectories"][0]
    assert (found["step"]["index"], found["used"], found["calls"], server.count) == (3, "from-scores", 0, calls)
    assert run_app(app, ["localise", str(trajectories), "--strategy", "from-scores", "-o", str(tmp_path / "t")]) == 2
    assert "give a judge run folder" in capsys.readouterr().err


def test_an_answer_naming_no_step_is_a_protocol_error_and_exits_4(trajectories: Path, tmp_path: Path) -> None:
    def wrong(request: ReceivedRequest) -> ScriptedReply:
        return ScriptedReply.answer({"agent": "solver", "step": "T0.99", "reason": "a guess"})

    with ScriptedJudgeServer(wrong) as server:
        code = run_app(app, ["localise", str(trajectories / "failed.json"), *judge_args(server),
                             "--judge-max-attempts", "1", "-o", str(tmp_path / "w"), "-q"])
    assert code == 4
    found = orjson.loads((tmp_path / "w" / "localisation.json").read_bytes())["trajectories"][0]
    assert (found["status"], found["error_code"], found["step"], found["calls"]) == ("failed", "schema_violation",
                                                                                     None, 1)


def test_repeats_report_how_often_the_answers_agree(server: ScriptedJudgeServer, trajectories: Path,
                                                    tmp_path: Path) -> None:
    assert run_app(app, ["localise", str(trajectories / "failed.json"), *judge_args(server), "--judge-repeats", "3",
                         "--strategy", "binary-search", "-o", str(tmp_path / "r"), "-q"]) == 0
    found = orjson.loads((tmp_path / "r" / "localisation.json").read_bytes())["trajectories"][0]
    assert found["repeats"]["steps"] == ["T0.3"] * 3 and found["repeats"]["step_agreement"] == 1.0
    seeds = {orjson.loads(r.body).get("seed") for r in server.requests}
    assert len(seeds) == 3  # each repeat asked with its own seed (the first with the configured one: none)


def test_bad_options_exit_2(trajectories: Path, tmp_path: Path) -> None:
    assert run_app(app, ["localise", str(trajectories), "--strategy", "guess", "-o", str(tmp_path / "x")]) == 2
    assert run_app(app, ["localise", str(trajectories), "--judge-repeats", "0", "--judge-url", "http://x",
                         "--judge-model", "m", "-o", str(tmp_path / "x")]) == 2


def test_agree_scores_the_localisation_of_the_run_and_those_given(
    server: ScriptedJudgeServer, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    labels = tmp_path / "labels.jsonl"
    label = {"trajectory_id": "failed", "step": 3, "decisive": True, "extra": {"mistake_agent": "solver"}}
    labels.write_bytes(orjson.dumps(label) + b"\n")
    assert run_app(app, ["localise", str(run), *judge_args(server), "-o", str(tmp_path / "a"), "-q"]) == 0
    assert run_app(app, ["localise", str(run), "--strategy", "from-scores", "-q"]) == 0  # the run's own
    capsys.readouterr()
    assert run_app(app, ["agree", str(run), "--labels", str(labels), "--resamples", "100",
                         "--localisation", str(tmp_path / "a" / "localisation.json")]) == 0
    scored = orjson.loads((run / "localisation-agreement.json").read_bytes())
    assert [s["strategy"] for s in scored["strategies"]] == ["from-scores", "all-at-once"]  # the run's own first
    assert [s["step"]["value"] for s in scored["strategies"]] == [1.0, 1.0]
    assert [s["agent"]["value"] for s in scored["strategies"]] == [1.0, 1.0]
    out = capsys.readouterr().out
    assert "Localisation against 1 decisive-step labels" in out and "within ±3" in out
    assert "Failure localisation" in (run / "report.html").read_text()  # agree keeps the section
    read_manifest(run)
    alone = tmp_path / "a" / "localisation.json"
    assert run_app(app, ["agree", str(alone), "--labels", str(labels), "--resamples", "100", "-q"]) == 0
    assert (tmp_path / "a" / "localisation-agreement.json").exists()


def test_ctrl_c_keeps_the_finished_localisations_and_a_rerun_asks_only_for_the_rest(tmp_path: Path) -> None:
    for i in range(4):  # four different trees: no two questions share a judge cache entry
        write(tmp_path / "in" / f"t{i}.json", document(steps(6 + i, plant=3), trajectory_id=f"t{i}"))
    with ScriptedJudgeServer(plant_rule, latency=0.5) as slow:
        args = ["localise", str(tmp_path / "in"), "--judge-url", slow.base_url, "--judge-model", "scripted",
                "--concurrency-limit", "1", "--cache", str(tmp_path / "cache.sqlite"), "-o", str(tmp_path / "loc"),
                "-q"]
        process = subprocess.Popen([str(Path(sys.executable).parent / "tracegrade"), *args],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60  # only stops the wait for a hung child, never a verdict
        while slow.count < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.02)  # the first root answered, the second asked
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        kept = orjson.loads((tmp_path / "loc" / "localisation.json").read_bytes())
        status = read_manifest(tmp_path / "loc")["status"]
        asked = slow.count
        assert run_app(app, args) == 0
        again = slow.count - asked
    assert process.returncode == 130, err
    finished = len(kept["trajectories"])
    assert finished >= 1 and kept["summary"]["interrupted"] == 4 - finished and status == "interrupted"
    assert err.splitlines() == [f"interrupted: kept {finished} finished of 4 localisations in "
                                f"{tmp_path / 'loc' / 'localisation.json'}; the same command again asks only for "
                                "the rest (finished judge calls come from the judge cache)"]
    assert read_manifest(tmp_path / "loc")["status"] == "completed"  # the rerun finished the job
    assert again == 4 - finished  # one question per unfinished root; the finished ones came from the cache


def test_two_agree_outputs_in_one_folder_keep_their_own_localisation_figures(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_app(app, ["localise", str(run), "--strategy", "from-scores", "-q"]) == 0  # decisive step: 3
    right, wrong = tmp_path / "right.jsonl", tmp_path / "wrong.jsonl"
    right.write_bytes(orjson.dumps({"trajectory_id": "failed", "step": 3, "decisive": True}) + b"\n")
    wrong.write_bytes(orjson.dumps({"trajectory_id": "failed", "step": 7, "decisive": True}) + b"\n")
    out = tmp_path / "agreements"
    for labels, name in ((right, "right.json"), (wrong, "wrong.json")):
        assert run_app(app, ["agree", str(run), "--labels", str(labels), "--resamples", "100", "-q",
                             "-o", str(out / name)]) == 0
    steps = {name: orjson.loads((out / f"{name}.localisation-agreement.json").read_bytes())["strategies"][0]["step"]
             for name in ("right", "wrong")}
    assert (steps["right"]["value"], steps["wrong"]["value"]) == (1.0, 0.0)  # before: one file, the second's
    assert not (out / "localisation-agreement.json").exists()
    assert sorted(p.name for p in out.iterdir()) == [
        "right.html", "right.json", "right.localisation-agreement.json",
        "wrong.html", "wrong.json", "wrong.localisation-agreement.json"]
