from __future__ import annotations

from pathlib import Path

import pytest

import tracegrade
from tests.atif.helpers import trajectory, write
from tests.conftest import EXAMPLES
from tracegrade.errors import ConfigError, InputError
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.runs import read_manifest


def test_the_examples_load_into_two_valid_trees() -> None:
    loaded = tracegrade.load_trajectories([EXAMPLES / "atif"])
    assert len(loaded.roots) == 2 and loaded.all_valid


def test_a_broken_file_is_an_error_unless_loading_is_tolerant(tmp_path: Path) -> None:
    write(tmp_path / "good.json", trajectory())
    write(tmp_path / "bad.json", b"{")
    with pytest.raises(InputError, match=r"bad\.json"):
        tracegrade.load_trajectories([tmp_path])
    loaded = tracegrade.load_trajectories([str(tmp_path)], strict=False)
    assert len(loaded.roots) == 1 and [a.path.endswith("bad.json") for a in loaded.invalid_inputs] == [True]


def test_grading_scores_every_step_and_writes_the_run_folder(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    results = tracegrade.grade_trajectories(
        [EXAMPLES / "atif"], judge_url=server.base_url, judge_model="m", output=tmp_path / "run", job_id="api-1"
    )
    assert results.summary.atif_overall_score == pytest.approx(0.75) and results.job_id == "api-1"
    assert read_manifest(tmp_path / "run")["job_id"] == "api-1"


def test_job_parameters_reach_the_job(server: ScriptedJudgeServer) -> None:
    results = tracegrade.grade_trajectories(
        [EXAMPLES / "atif"], judge_url=server.base_url, judge_model="m", failure_threshold=0.8
    )
    assert results.parameters.failure_threshold == 0.8
    assert results.summary.categories  # every step scored 0.75, below 0.8: each one was categorised


def test_a_rerun_with_the_cache_asks_the_judge_nothing(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    first = tracegrade.grade_trajectories([EXAMPLES / "atif"], judge_url=server.base_url, judge_model="m",
                                          cache=tmp_path / "judge.sqlite3")
    asked = server.count
    again = tracegrade.grade_trajectories([EXAMPLES / "atif"], judge_url=server.base_url, judge_model="m",
                                          cache=tmp_path / "judge.sqlite3")
    assert asked > 0 and server.count == asked
    assert again.summary.atif_overall_score == first.summary.atif_overall_score


def test_an_unknown_parameter_is_refused_before_any_judge_call(server: ScriptedJudgeServer) -> None:
    with pytest.raises(ConfigError, match="no_such_knob"):
        tracegrade.grade_trajectories([EXAMPLES / "atif"], judge_url=server.base_url, judge_model="m", no_such_knob=1)
    assert server.count == 0


def test_localise_failures_names_the_decisive_step(tmp_path: Path) -> None:
    from tests.atif.localising.plant import document, plant_rule, steps
    from tests.atif.scripted import write as write_doc

    root = write_doc(tmp_path / "in" / "r.json", document(steps(9, plant=4)))
    with ScriptedJudgeServer(plant_rule) as server:
        found = tracegrade.localise_failures([root], judge_url=server.base_url, judge_model="m",
                                             strategy="binary-search", output=tmp_path / "out")
    assert found.trajectories[0].step is not None and found.trajectories[0].step.index == 4
    assert (tmp_path / "out" / "localisation.json").exists()
    with pytest.raises(ConfigError, match="strategy"):
        tracegrade.localise_failures([root], strategy="guess")
