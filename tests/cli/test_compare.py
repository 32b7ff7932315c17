from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.atif.output.test_compare import runs
from tracegrade.cli._app import app, run_app

__all__ = ["runs"]


def compare(*args: str) -> int:
    return run_app(app, ["compare", *args])


def test_an_unchanged_run_exits_0_with_the_gate_on(runs: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    code = compare(str(runs["base"]), str(runs["again"]), "--fail-on-regression", "--fail-on-new-failures",
                   "-o", str(tmp_path / "cmp"))
    out = capsys.readouterr().out
    assert code == 0 and "gate: passed (fail_on_regression, fail_on_new_failures): exit 0" in out
    assert all(len(line) <= 80 for line in out.splitlines())
    document = orjson.loads((tmp_path / "cmp/comparison.json").read_bytes())
    few = ("only 2 scored pair(s) (95% interval [+0.0000, +0.0000]): under 10 pairs the interval means little, "
           "and the gate did not fire on so few")
    assert document["gate"] == {"exit_code": 0, "fired": [],
                                "checked": ["fail_on_regression", "fail_on_new_failures"], "warnings": [few]}
    assert "warning: only 2 scored pair(s)" in out
    for key in ("baseline", "candidate", "comparable", "allowed_differences", "pairs", "only_in_baseline",
                "only_in_candidate", "improved", "regressed", "unchanged", "mean_delta", "interval", "p_value"):
        assert key in document


def test_a_regression_exits_1_and_prints_and_records_the_rule(runs: dict[str, Path], tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = compare(str(runs["base"]), str(runs["worse"]), "--fail-on-regression", "-o", str(tmp_path / "cmp"), "-q")
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("gate: FAILED: exit 1\n  fail_on_regression: delta -0.2500")
    fired = orjson.loads((tmp_path / "cmp/comparison.json").read_bytes())["gate"]["fired"]
    assert fired[0].startswith("fail_on_regression: delta -0.2500")
    assert compare(str(runs["base"]), str(runs["worse"]), "-q") == 0  # no gate asked for: it describes


def test_new_failures_and_min_delta(runs: dict[str, Path]) -> None:
    assert compare(str(runs["base"]), str(runs["worse"]), "--fail-on-new-failures", "-q") == 1
    assert compare(str(runs["base"]), str(runs["worse"]), "--fail-on-regression", "--min-delta", "0.3", "-q") == 0
    assert compare(str(runs["base"]), str(runs["worse"]), "--min-delta", "-1") == 2


def test_runs_that_differ_exit_2_with_one_line(runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert compare(str(runs["base"]), str(runs["other_model"])) == 2
    err = capsys.readouterr().err
    assert err == ("error: runs are not comparable: judge.model differs: baseline 'scripted', candidate "
                   "'another-judge' (--allow-different judge.model compares them anyway)\n")
    assert compare(str(runs["base"]), str(runs["other_model"]), "--allow-different", "judge.model", "-q") == 0


def test_a_folder_that_is_not_a_run_exits_2(tmp_path: Path, runs: dict[str, Path]) -> None:
    (tmp_path / "empty").mkdir()
    assert compare(str(tmp_path / "empty"), str(runs["base"])) == 2


def test_mlflow_logs_the_comparison(runs: dict[str, Path], tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'mlruns.db'}"
    code = compare(str(runs["base"]), str(runs["worse"]), "-o", str(tmp_path / "cmp"), "--mlflow",
                   "--mlflow-uri", uri, "-q")
    assert code == 0
    client = MlflowClient(uri)
    (run,) = client.search_runs([client.get_experiment_by_name("tracegrade").experiment_id])
    params, metrics = run.data.params, run.data.metrics
    assert params["baseline_path"] == str(runs["base"]) and params["candidate_path"] == str(runs["worse"])
    assert params["baseline_job_id"] and params["candidate_job_id"] and params["min_delta"] == "0.0"
    assert metrics["delta"] == pytest.approx(-0.25) and metrics["regressed"] == 2.0
    assert metrics["newly_failing"] == 1.0 and metrics["gate_exit_code"] == 0.0 and "p_value" in metrics
    names = {a.path for a in client.list_artifacts(run.info.run_id, "compare")}
    assert names == {"compare/comparison.json", "compare/comparison.html"}


@pytest.mark.slow
@pytest.mark.local_judge
def test_the_readme_example_finds_the_bundled_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], local_examples_run: Path, local_judge_cache: Path
) -> None:
    """README's compare example as written; the baseline is the session's local-judge run of examples/atif, and
    the candidate shares its judge cache (its unchanged steps and subagents are not asked again)."""
    from tests.conftest import EXAMPLES

    code = run_app(app, ["judge", str(EXAMPLES / "atif-regressed"), "--judge", "local", "-o",
                         str(tmp_path / "candidate"), "-q", "--cache", str(local_judge_cache)])
    assert code == 0
    capsys.readouterr()
    code = compare(str(local_examples_run), str(tmp_path / "candidate"), "-o", str(tmp_path / "cmp"),
                   "--fail-on-regression")
    document = orjson.loads((tmp_path / "cmp/comparison.json").read_bytes())
    assert code == 1 and "gate: FAILED: exit 1" in capsys.readouterr().out
    assert document["comparable"] and document["n"] == 2 and document["mean_delta"] < 0
    assert "bugfix-session/trajectory.json" in document["regressed"]
    assert {p["matched_by"] for p in document["pairs"]} == {"trajectory_id", "session_id"}
