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


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e400", "Infinity"])
@pytest.mark.parametrize("command", [["compare"], ["suite", "compare"], ["dabench", "compare"]])
def test_a_min_delta_that_is_not_finite_exits_2_naming_the_option(
    command: list[str], value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tracegrade.cli._app import dabench_app

    runner, args = (dabench_app, command[1:]) if command[0] == "dabench" else (app, command)
    assert run_app(runner, [*args, str(tmp_path / "a"), str(tmp_path / "b"), "--min-delta", value,
                            "--fail-on-regression"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --min-delta") and "finite" in err and len(err.splitlines()) == 1


def _edited_run(source: Path, target: Path, edit: str, value: float) -> Path:
    """A copy of ``source`` with one score hand-edited and its manifest rewritten to match (so it verifies)."""
    import shutil

    from tracegrade.runs import amend_manifest

    shutil.copytree(source, target)
    document = orjson.loads((target / "evaluation_results.json").read_bytes())
    node = document["nodes"][0]
    if edit == "own_score":
        node["own_score"] = value
    elif edit == "step":
        node["steps"][0]["score"] = value
    elif edit == "criterion":
        name = next(iter(node["steps"][0]["criterion_scores"]))
        node["steps"][0]["criterion_scores"][name] = value
    else:
        document["summary"]["atif_overall_score"] = value
    (target / "evaluation_results.json").write_bytes(orjson.dumps(document))
    assert amend_manifest(target, ["evaluation_results.json"])
    return target


@pytest.mark.parametrize(("edit", "value", "place"), [
    ("own_score", 1e308, "$.nodes[0].own_score"), ("own_score", -5.0, "$.nodes[0].own_score"),
    ("step", 7.0, "$.nodes[0].steps[0].score"), ("criterion", -0.5, "$.nodes[0].steps[0].criterion_scores"),
    ("summary", 3.0, "$.summary.atif_overall_score"),
])
def test_a_hand_edited_score_out_of_0_1_exits_2_naming_the_place(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str, value: float, place: str
) -> None:
    edited = _edited_run(runs["base"], tmp_path / "edited", edit, value)
    assert compare(str(runs["base"]), str(edited), "--fail-on-regression", "--fail-on-new-failures", "-q") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {edited / 'evaluation_results.json'}: ") and place in err
    assert len(err.splitlines()) == 1


def test_an_output_naming_a_run_folder_is_refused_and_the_run_kept(runs: dict[str, Path], tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    from tracegrade.runs import read_manifest

    base = tmp_path / "base"
    shutil.copytree(runs["base"], base)
    before = (base / "manifest.json").read_bytes()
    assert compare(str(base), str(runs["worse"]), "-o", str(base), "-q") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {base}/ is not empty: it holds the run of another command (atif-judge, job ")
    assert (base / "manifest.json").read_bytes() == before and not (base / "comparison.json").exists()
    read_manifest(base)  # still a whole run: compare and agree read it
    assert compare(str(base), str(runs["worse"]), "-q") == 0
    assert compare(str(runs["base"]), str(runs["worse"]), "-o", str(runs["worse"]), "-q") == 2
    # --overwrite writes into a folder of other files, never over a run of another kind
    assert compare(str(base), str(runs["worse"]), "-o", str(base), "-q", "--overwrite") == 2
    assert "holds a atif-judge run (job " in capsys.readouterr().err
    assert (base / "manifest.json").read_bytes() == before


def test_merge_never_writes_over_one_of_its_shards(runs: dict[str, Path], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    shard = tmp_path / "shard0"
    shutil.copytree(runs["shard0"], shard)
    before = (shard / "evaluation_results.json").read_bytes()
    assert run_app(app, ["merge", str(shard), str(runs["shard1"]), "-o", str(shard), "-q"]) == 2
    assert "is one of the inputs" in capsys.readouterr().err
    assert (shard / "evaluation_results.json").read_bytes() == before
