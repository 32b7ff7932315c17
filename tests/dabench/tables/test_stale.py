from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.dabench.example import EXAMPLE
from tracegrade.dabench import EvalOptions, PipelineOptions, run_pipeline
from tracegrade.errors import OutputError
from tracegrade.runs import read_manifest


def run_with(tmp_path: Path, tasks: list[str]) -> Path:
    """A copy of the example run whose summary.json lists only ``tasks`` (their folders only)."""
    runs = tmp_path / f"runs-{'-'.join(tasks)}"
    shutil.copytree(EXAMPLE / "runs", runs, dirs_exist_ok=True)
    summary = orjson.loads((runs / "demo-run/summary.json").read_bytes())
    summary["tasks"] = [t for t in summary["tasks"] if t["task_id"] in tasks]
    (runs / "demo-run/summary.json").write_bytes(orjson.dumps(summary))
    for folder in (runs / "demo-run").glob("task_*"):
        if folder.name not in tasks:
            shutil.rmtree(folder)
    return runs


def evaluate(runs: Path, out: Path) -> None:
    options = EvalOptions(run="demo-run", runs_root=runs, data_root=EXAMPLE / "data", output=out)
    run_pipeline(options, PipelineOptions(figures=False))


def test_task_folders_an_earlier_larger_run_wrote_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    evaluate(run_with(tmp_path, ["task_1", "task_2", "task_3"]), out)
    assert (out / "task_3/task_replay.json").is_file()
    evaluate(run_with(tmp_path, ["task_1"]), out)
    assert sorted(p.name for p in out.glob("task_*") if p.is_dir()) == ["task_1"]
    assert all(not name.startswith(("task_2", "task_3")) for name in read_manifest(out)["files"])


def test_a_stale_task_folder_holding_a_file_no_run_recorded_is_refused_and_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    evaluate(run_with(tmp_path, ["task_1", "task_2", "task_3"]), out)
    (out / "task_3/notes.txt").write_text("mine")
    (out / "task_2/answer.csv").write_text("edited by hand\n")
    before = read_manifest(out, verify=False)
    with pytest.raises(OutputError, match="task_2 and 1 more: task folders this run does not list") as caught:
        evaluate(run_with(tmp_path, ["task_1"]), out)
    assert caught.value.exit_code == 4
    assert (out / "task_3/notes.txt").read_text() == "mine" and (out / "task_2/answer.csv").exists()
    assert read_manifest(out, verify=False) == before  # refused before anything was written


def test_task_folders_in_an_output_without_an_earlier_manifest_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "task_9").mkdir(parents=True)
    (out / "task_9/trace.json").write_text("{}")
    with pytest.raises(OutputError, match="task_9"):
        evaluate(run_with(tmp_path, ["task_1"]), out)
    assert (out / "task_9/trace.json").exists()
    (out / "task_9/trace.json").unlink()
    evaluate(run_with(tmp_path, ["task_1"]), out)  # an empty folder holds nothing to lose
    assert not (out / "task_9").exists()


def test_the_run_folder_itself_keeps_every_task_folder(tmp_path: Path) -> None:
    runs = run_with(tmp_path, ["task_1", "task_2"])
    (runs / "demo-run/task_3").mkdir()  # not in summary.json: evaluated as an unlisted task, never removed
    options = EvalOptions(run="demo-run", runs_root=runs, data_root=EXAMPLE / "data")
    run_pipeline(options, PipelineOptions(figures=False))
    assert (runs / "demo-run/task_3").is_dir() and (runs / "demo-run/task_1/trace.json").is_file()
