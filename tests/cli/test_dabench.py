from __future__ import annotations

import hashlib
import math
import shutil
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer

from tracegrade.cli._app import app, run_app
from tracegrade.cli._dabench import dabench_app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dabench"


def example_args(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "eval-v2",
        "demo-run",
        "--runs-root",
        str(EXAMPLE / "runs"),
        "--data-root",
        str(EXAMPLE / "data"),
        "-o",
        str(tmp_path),
        *extra,
    ]


def test_eval_v2_writes_tables_and_prints_a_summary_at_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert run_app(dabench_app, example_args(tmp_path)) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "task_metrics.csv").is_file() and (tmp_path / "manifest.json").is_file()
    assert "demo-run" in out and "Mean final score" in out and "Difficulty breakdown" in out
    assert "66.7%" in out  # 2 of 3 tasks executed; 2 of 3 answers correct
    assert max(len(line) for line in out.splitlines()) <= 80


def test_tracegrade_dabench_eval_v2_research_writes_every_artifact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    assert run_app(app, ["dabench", *example_args(tmp_path, "--mode", "research", "--resamples", "500")]) == 0
    out = capsys.readouterr().out
    for title in ("Harness health", "Analyst team summary", "Metric statistics", "Ablation: replanning"):
        assert title in out
    assert max(len(line) for line in out.splitlines()) <= 160
    for name in ("report.html", "paper_tables.tex", "figures/correlation_matrix.png", "task_2/task_replay.json"):
        assert (tmp_path / name).is_file(), name


def test_format_json_prints_the_report_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(dabench_app, example_args(tmp_path, "--mode", "verbose", "--format", "json")) == 0
    document = orjson.loads(capsys.readouterr().out)
    assert document["mode"] == "verbose" and document["harness_status"] == "HEALTHY"
    assert "analyst-team" in [s["id"] for s in document["sections"]]


@pytest.fixture
def evaluated(tmp_path: Path) -> Path:
    assert run_app(dabench_app, [*example_args(tmp_path / "a"), "-q"]) == 0
    return tmp_path / "a"


def test_compare_ablation_and_figures_on_an_evaluated_run(
    evaluated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    capsys.readouterr()
    assert run_app(dabench_app, ["compare", str(evaluated), str(evaluated), "-o", str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr().out
    assert "Improved / regressed / unchanged   0 / 0 / 3" in out and max(map(len, out.splitlines())) <= 80
    document = orjson.loads((tmp_path / "c.json").read_bytes())
    assert document["n"] == 3 and len(document["pairs"]) == 3 and document["gate"]["exit_code"] == 0
    assert run_app(dabench_app, ["ablation", str(evaluated), "--format", "json"]) == 0
    ablation = orjson.loads(capsys.readouterr().out)
    assert [s["id"] for s in ablation["sections"]][-1] == "specialists"
    assert run_app(dabench_app, ["figures", str(evaluated), "-o", str(tmp_path / "figs")]) == 0
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == [
        "autonomy_vs_efficiency.png",
        "correlation_matrix.png",
        "failure_distribution.png",
        "score_distribution.png",
    ]


def test_compare_refuses_a_folder_that_was_not_evaluated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(dabench_app, ["compare", str(tmp_path), str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "task_metrics.parquet: missing" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval-v2", "no-such-run"], "no such folder"),
        (["eval-v2", str(EXAMPLE / "runs" / "demo-run"), "--lambda", "-1"], "--lambda -1.0: Input should be greater"),
        (["eval-v2", str(EXAMPLE / "runs" / "demo-run"), "--lambda", "10.5"], "--lambda 10.5: Input should be less"),
        (["eval-v2", str(EXAMPLE / "runs" / "demo-run"), "--max-replans", "0"], "--max-replans 0: Input should"),
        (["eval-v2", str(EXAMPLE / "runs" / "demo-run"), "--resamples", "99"], "--resamples 99: Input should"),
        (["compare", str(EXAMPLE), str(EXAMPLE), "--resamples", "100001"], "--resamples 100001: Input should"),
        (["eval-v2", str(EXAMPLE / "runs" / "demo-run"), "--data-root", "/nonexistent"], "--data-root"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(dabench_app, args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_an_unknown_mode_is_a_usage_error_listing_the_modes(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(dabench_app, ["eval-v2", "demo-run", "--mode", "loud"]) == 2
    assert "'loud' is not one of 'standard', 'verbose', 'research'" in capsys.readouterr().err


EVAL_DEFAULTS = {
    "--data-root": None, "--output": None, "--format": "text", "--quiet": False, "--overwrite": False,
    "--mode": "standard",
    "--runs-root": Path("artifacts/runs"), "--lambda": 0.5, "--max-replans": 3, "--baseline": None, "--resamples": 2000,
}
COMMANDS = {
    "eval-v2": EVAL_DEFAULTS,
    "compare": {"--metric": "final_score", "--strict": False, "--format": "text", "--output": None,
                "--runs-root": Path("artifacts/runs"), "--resamples": 2000, "--min-delta": 0.0,
                "--fail-on-regression": False, "--fail-on-new-failures": False, "--allow-unhealthy": False},
    "ablation": {"--format": "text", "--output": None, "--runs-root": Path("artifacts/runs")},
    "figures": {"--output": None, "--runs-root": Path("artifacts/runs")},
}


def test_every_command_keeps_its_flags_and_defaults() -> None:
    commands = typer.main.get_command(dabench_app).commands  # type: ignore[attr-defined]
    for name, expected in COMMANDS.items():
        options = {p.opts[0]: p.default for p in commands[name].params if p.opts[0].startswith("--")}
        assert options == expected, name
    params = {p.opts[0]: p for p in commands["compare"].params}
    assert params["--strict"].secondary_opts == ["--no-strict"] and params["--output"].opts == ["--output", "-o"]


def test_the_parameters_reach_the_run(tmp_path: Path) -> None:
    args = ["--mode", "research", "--lambda", "0.25", "--max-replans", "5", "--resamples", "300", "-q"]
    assert run_app(dabench_app, example_args(tmp_path, *args)) == 0
    parameters = orjson.loads((tmp_path / "manifest.json").read_bytes())["metadata"]["parameters"]
    assert (parameters["lam"], parameters["max_replans"]) == (0.25, 5)
    report = orjson.loads((tmp_path / "report.json").read_bytes())
    stats = next(s for s in report["sections"] if s["id"] == "metric-statistics")
    assert "300 resamples" in stats["notes"][0] and report["mode"] == "research"


def _many_tasks(folder: Path, count: int) -> tuple[Path, Path]:
    """A run of ``count`` copies of the example's task_1 (run folder and data root)."""
    import shutil

    run, data = folder / "runs" / "many", folder / "data"
    entries = []
    for i in range(1, count + 1):
        for source, target in (("runs/demo-run", run), ("data/output", data / "output")):
            shutil.copytree(EXAMPLE / source / "task_1", target / f"task_{i}")
        entries.append({"task_id": f"task_{i}", "task_output_dir": f"/runs/many/task_{i}",
                        "prediction_csv_path": f"/runs/many/task_{i}/prediction.csv",
                        "trace_path": f"/runs/many/task_{i}/trace.json", "succeeded": True, "failure_reason": None})
    summary = {"run_id": "many", "task_count": count, "succeeded_task_count": count, "max_workers": 1,
               "tasks": entries}
    (run / "summary.json").write_bytes(orjson.dumps(summary))
    return run, data


def test_ctrl_c_exits_130_saying_how_many_tasks_were_kept(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    from tracegrade.runs import read_manifest

    run, data = _many_tasks(tmp_path, 150)
    out = tmp_path / "out"
    command = [str(Path(sys.executable).parent / "dabench"), "eval-v2", str(run), "--data-root", str(data),
               "-o", str(out), "-q"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60  # only stops the wait for a hung child, never a verdict
    while not (out / "task_3" / "answer.csv").exists() and time.monotonic() < deadline:  # written as it goes
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    manifest = read_manifest(out)
    kept = manifest["metadata"]["task_count"]  # rows of task_metrics
    assert manifest["status"] == "interrupted" and 3 <= kept < 150
    assert err.splitlines() == [f"interrupted: kept {kept} of 150 tasks evaluated, with their reports, in {out}/ "
                                "(manifest status interrupted); the same command again evaluates every task"]


def _unhealthy(tmp_path: Path) -> Path:
    """The example run evaluated after losing files summary.json names: its harness health is UNHEALTHY."""
    runs = tmp_path / "runs"
    shutil.copytree(EXAMPLE / "runs", runs)
    for name in ("task_1/prediction.csv", "task_2/trace.json", "task_2/trace_r2.json"):
        (runs / "demo-run" / name).unlink()
    out = tmp_path / "unhealthy"
    assert run_app(dabench_app, ["eval-v2", "demo-run", "--runs-root", str(runs), "--data-root",
                                 str(EXAMPLE / "data"), "-o", str(out), "-q"]) == 0
    return out


def test_compare_refuses_an_unhealthy_run_unless_allowed_and_shows_both_healths_first(
    evaluated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    unhealthy = _unhealthy(tmp_path)
    capsys.readouterr()
    assert run_app(dabench_app, ["compare", str(evaluated), str(unhealthy)]) == 2
    err = capsys.readouterr().err
    assert "harness health UNHEALTHY" in err and "--allow-unhealthy" in err and len(err.strip().splitlines()) == 1
    assert run_app(dabench_app, ["compare", str(evaluated), str(unhealthy), "--allow-unhealthy",
                                 "-o", str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr().out
    assert out.index("Harness health of the two runs") < out.index("final_score: demo-run (A)")
    assert "HEALTHY (10.0/10)" in out and "UNHEALTHY (" in out and "Missing artefact (excluded): task_1." in out
    document = orjson.loads((tmp_path / "c.json").read_bytes())
    assert document["missing_artefact"] == ["task_1"] and document["n"] == 2
    assert [p["id"] for p in document["pairs"]] == ["task_2", "task_3"]
    assert (document["baseline"]["health"], document["candidate"]["health"]) == ("HEALTHY", "UNHEALTHY")


def _rewrite_manifest(folder: Path) -> None:
    """Make the manifest vouch for the files as they are now (what a hand-edit would do)."""
    manifest = orjson.loads((folder / "manifest.json").read_bytes())
    for name, entry in manifest["files"].items():
        data = (folder / name).read_bytes()
        entry.update({"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    (folder / "manifest.json").write_bytes(orjson.dumps(manifest))


def _set_score(folder: Path, value: float) -> None:
    table = pq.read_table(folder / "task_metrics.parquet")
    scores = table.column("final_score").to_pylist()
    scores[0] = value
    index = table.schema.get_field_index("final_score")
    pq.write_table(table.set_column(index, "final_score", pa.array(scores, pa.float64())),
                   folder / "task_metrics.parquet")


def test_compare_refuses_an_edited_task_metrics_table(
    evaluated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited = tmp_path / "edited"
    shutil.copytree(evaluated, edited)
    _set_score(edited, 0.25)
    capsys.readouterr()
    assert run_app(dabench_app, ["compare", str(evaluated), str(edited)]) == 2
    err = capsys.readouterr().err
    assert "task_metrics.parquet" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("value", [math.inf, 1e308, -0.5])
def test_a_metric_out_of_range_is_one_line_exit_2_not_a_traceback(
    evaluated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], value: float
) -> None:
    edited = tmp_path / "edited"
    shutil.copytree(evaluated, edited)
    _set_score(edited, value)
    _rewrite_manifest(edited)  # the manifest was rewritten to match: the value itself must be refused
    capsys.readouterr()
    assert run_app(dabench_app, ["compare", str(evaluated), str(edited)]) == 2
    err = capsys.readouterr().err
    assert f"final_score = {value!r} is not in [0, 1]" in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
