"""Items 1 and 2 of issue 23: a FIFO, a device or a link to one, given to any reader, is refused at once.

Each command runs in a child process with a deadline and a 3 GiB address-space limit, so a reader that
waits for a writer fails the test instead of hanging the suite, and one that reads ``/dev/zero`` fails
it instead of filling the machine's memory.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.atif.agree_data import two_trajectories
from tracegrade.atif.output._artifacts import write_artifacts

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                                reason="needs POSIX FIFOs and /dev/zero")

ROOT = Path(__file__).resolve().parents[2]
SUITES = ROOT / "examples" / "suites"
DABENCH = ROOT / "examples" / "dabench"
TOOL = Path(sys.executable).parent / "tracegrade"
DEADLINE = 120
"""Seconds a refused input may take at most (a hang is what it guards against; the refusal takes a second)."""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def tracegrade(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True, timeout=DEADLINE,
                          preexec_fn=_limited, stdin=subprocess.DEVNULL)


def special(path: Path, kind: str) -> Path:
    """``path`` made a FIFO, or a link to ``/dev/zero``."""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return path


def refused(done: subprocess.CompletedProcess[str], path: Path) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert str(path) in done.stderr and "not a regular file" in done.stderr


KINDS = ["fifo", "zero"]


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    shutil.copytree(SUITES, tmp_path / "suites")
    return tmp_path / "suites" / "dataset.json"


@pytest.mark.parametrize("kind", KINDS)
def test_suite_check_refuses_a_special_dataset(tmp_path: Path, kind: str) -> None:
    path = special(tmp_path / "dataset.json", kind)
    done = tracegrade("suite", "check", path)
    assert done.returncode == 2 and f"{path}: /: not a regular file" in done.stderr


def test_suite_check_refuses_a_fifo_case_file(dataset: Path) -> None:
    manifest = orjson.loads(dataset.read_bytes())  # (a link to /dev/zero is a link out of the dataset folder)
    case_file = special(dataset.parent / manifest["suites"][0]["cases"], "fifo")
    done = tracegrade("suite", "check", dataset)
    named = manifest["suites"][0]["cases"]  # named where the manifest names it, with its suite
    assert done.returncode == 2 and f"case file {named}: not a regular file" in done.stderr
    assert case_file.name in done.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_suite_run_refuses_special_recorded_results(dataset: Path, tmp_path: Path, kind: str) -> None:
    path = special(tmp_path / "results.jsonl", kind)
    refused(tracegrade("suite", "run", dataset, "--results", path, "-o", tmp_path / "report.json"), path)
    assert not (tmp_path / "report.json").exists()


@pytest.mark.parametrize("kind", KINDS)
def test_suite_run_refuses_a_special_checkpoint(dataset: Path, tmp_path: Path, kind: str) -> None:
    path = special(tmp_path / "checkpoint.jsonl", kind)
    done = tracegrade("suite", "run", dataset, "--target-cmd", f"{sys.executable} {SUITES / 'sut.py'}",
                      "--checkpoint", path, "-o", tmp_path / "report.json")
    refused(done, path)
    assert path.is_symlink() or path.exists()


@pytest.fixture
def report(dataset: Path, tmp_path: Path) -> Path:
    done = tracegrade("suite", "run", dataset, "--results", SUITES / "results.jsonl", "-o", tmp_path / "saved.json")
    assert (tmp_path / "saved.json").exists(), done.stderr
    return tmp_path / "saved.json"


@pytest.mark.parametrize("kind", KINDS)
def test_suite_compare_and_replay_refuse_a_special_report(report: Path, dataset: Path, tmp_path: Path,
                                                           kind: str) -> None:
    path = special(tmp_path / "candidate.json", kind)
    refused(tracegrade("suite", "compare", report, path), path)
    refused(tracegrade("suite", "replay", path, "--dataset", dataset, "-o", tmp_path / "again.json"), path)


@pytest.mark.parametrize("kind", KINDS)
def test_agree_refuses_special_labels_and_results(tmp_path: Path, kind: str) -> None:
    write_artifacts(two_trajectories(), tmp_path / "run")
    path = special(tmp_path / "labels.jsonl", kind)
    refused(tracegrade("agree", tmp_path / "run", "--labels", path), path)
    results = special(tmp_path / "evaluation_results.json", kind)
    refused(tracegrade("agree", results, "--labels", path), results)


@pytest.mark.parametrize("kind", KINDS)
def test_merge_refuses_a_special_shard(tmp_path: Path, kind: str) -> None:
    write_artifacts(two_trajectories(), tmp_path / "shard")
    path = special(tmp_path / "shard" / "evaluation_results.json", kind)
    refused(tracegrade("merge", tmp_path / "shard", tmp_path / "shard", "-o", tmp_path / "merged"), path)


@pytest.mark.parametrize("importer", ["otel", "whowhen"])
@pytest.mark.parametrize("kind", KINDS)
def test_importers_refuse_a_special_trace_file(tmp_path: Path, kind: str, importer: str) -> None:
    path = special(tmp_path / "trace.json", kind)  # before: "no such file or directory"
    refused(tracegrade("import", importer, path, "-o", tmp_path / "out"), path)


@pytest.mark.parametrize("name", ["trace.json", "prediction.csv"])
@pytest.mark.parametrize("kind", KINDS)
def test_dabench_records_a_special_task_file_as_that_task_s_error(tmp_path: Path, name: str, kind: str) -> None:
    shutil.copytree(DABENCH / "runs" / "demo-run", tmp_path / "run")
    path = special(tmp_path / "run" / "task_1" / name, kind)
    done = tracegrade("dabench", "eval-v2", tmp_path / "run", "--data-root", DABENCH / "data",
                      "-o", tmp_path / "out", "-q", "--format", "json")
    assert done.returncode == 0, done.stderr
    replay = orjson.loads((tmp_path / "out" / "task_1" / "task_replay.json").read_bytes())
    assert f"{path}: not a regular file" in orjson.dumps(replay).decode()


@pytest.mark.parametrize("kind", KINDS)
def test_dabench_refuses_a_special_summary(tmp_path: Path, kind: str) -> None:
    shutil.copytree(DABENCH / "runs" / "demo-run", tmp_path / "run")
    path = special(tmp_path / "run" / "summary.json", kind)
    done = tracegrade("dabench", "eval-v2", tmp_path / "run", "--data-root", DABENCH / "data",
                      "-o", tmp_path / "out", "-q")
    refused(done, path)
