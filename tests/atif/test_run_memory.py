"""A streamed job holds the trees of the roots in flight, not the collection (counted, not timed)."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

from pydantic import BaseModel

from tests.atif.delayed import marker_answer, marker_judge
from tests.atif.scripted import CUSTOM, trajectory, write
from tracegrade.atif import JobContext, parse_parameters, score_paths
from tracegrade.atif.asking._content import StepContent
from tracegrade.atif.reading._collection import read_collection
from tracegrade.atif.reading._document import Document
from tracegrade.atif.reading._models import Step
from tracegrade.atif.reading._records import TrajectoryNode
from tracegrade.judge import JudgeRequest
from tracegrade.judge.testing import FakeJudge

STEPS = 3
CONCURRENCY = 2


def live_steps() -> int:
    """Full step models alive now (the outline keeps one shared placeholder for all steps without references)."""
    return sum(1 for o in gc.get_objects() if type(o) is Step)


WINDOW = (2 * CONCURRENCY + 2) * STEPS
"""Steps of the roots admitted while two rounds of calls are outstanding, plus one root read ahead."""


def peak_live_steps(folder: Path, roots: int) -> int:
    """Score ``roots`` trajectories of ``STEPS`` steps; the most step models alive at any judge call."""
    for i in range(roots):
        write(folder / f"t{i:04d}.json", trajectory(*[f"root {i} step {k} SCORE:0.9" for k in range(STEPS)]))
    gc.collect()
    before, peak = live_steps(), 0

    def sample(request: JudgeRequest) -> float:
        nonlocal peak
        alive = live_steps() - before
        if alive > WINDOW:  # garbage that no collection has reached yet is not held: count what survives one
            gc.collect()
            alive = live_steps() - before
        peak = max(peak, alive)
        return 0.0

    options, criteria = parse_parameters({**CUSTOM, "concurrency_limit": CONCURRENCY})
    results = asyncio.run(score_paths([folder], options, criteria, marker_judge(sample), JobContext("m")))
    assert results.summary.counts["steps_scored"] == roots * STEPS
    assert [n.node_id for n in results.nodes] == [f"t{i:04d}.json" for i in range(roots)]  # still in order
    return peak


def test_live_trees_stay_flat_as_the_collection_grows(tmp_path: Path) -> None:
    # The bound is the window, whatever the collection's size; where in it the peak falls depends on the
    # order the calls end in, so the two sizes are not compared with each other (they were: 6 against 12 once).
    assert peak_live_steps(tmp_path / "small", 10) <= WINDOW + 1
    assert peak_live_steps(tmp_path / "large", 100) <= WINDOW + 1  # holding the collection would be 300


def live_contents() -> int:
    """Bounded copies of step content alive now (every finished step's record holds one)."""
    return sum(1 for o in gc.get_objects() if type(o) is StepContent)


def contents_after(folder: Path, roots: int) -> int:
    """Score ``roots`` trajectories of ``STEPS`` steps; the step contents still alive once the job returned."""
    for i in range(roots):
        write(folder / f"t{i:04d}.json", trajectory(*[f"root {i} step {k} SCORE:0.9" for k in range(STEPS)]))
    options, criteria = parse_parameters({**CUSTOM, "concurrency_limit": CONCURRENCY})
    gc.collect()
    before = live_contents()
    results = asyncio.run(score_paths([folder], options, criteria, marker_judge(lambda r: 0.0), JobContext("m")))
    gc.collect()
    alive = live_contents() - before
    walked = [step.content for node in results.nodes for step in node.steps]  # read back from the spool
    assert len(walked) == roots * STEPS and all(content is not None for content in walked)
    return alive


def test_finished_roots_records_are_spooled_not_held(tmp_path: Path) -> None:
    assert contents_after(tmp_path / "small", 10) == 0
    assert contents_after(tmp_path / "large", 100) == 0  # all 300 were held until the end before


def outline_objects(folder: Path, roots: int) -> tuple[int, int]:
    """ATIF models and paths the outline of ``roots`` trajectories holds once read."""
    for i in range(roots):
        write(folder / f"t{i:04d}.json", trajectory(*[f"root {i} step {k}" for k in range(STEPS)]))
    gc.collect()
    before = {id(o) for o in gc.get_objects()}
    kept = read_collection([folder])
    gc.collect()
    new = [o for o in gc.get_objects() if id(o) not in before]
    assert len(kept.outline.roots) == roots
    return sum(isinstance(o, BaseModel) for o in new), sum(isinstance(o, PurePath) for o in new)


def test_the_outline_holds_no_model_and_no_path_per_root(tmp_path: Path) -> None:
    outline_objects(tmp_path / "warm", 2)  # the skeleton shared by the documents of one shape is made once
    (small_models, small_paths), (large_models, large_paths) = (
        outline_objects(tmp_path / "small", 10), outline_objects(tmp_path / "large", 100)
    )
    assert small_models == large_models == 0
    assert small_paths == large_paths <= 2  # the input folder and the base of node ids: root files are strings


class _ProvenanceCounting(FakeJudge):
    """The marker judge, counting the outline trees alive whenever the job asks for its provenance.

    A job asks once every root is scored, after the summary is made and before the results are assembled.
    """

    def __init__(self) -> None:
        super().__init__(marker_answer)
        self.alive: list[int] = []

    def provenance(self) -> dict[str, Any]:
        gc.collect()
        self.alive.append(sum(1 for o in gc.get_objects() if type(o) is TrajectoryNode and not o.steps))
        return super().provenance()


def test_the_outline_is_let_go_of_before_the_results_are_made(tmp_path: Path) -> None:
    for i in range(20):
        write(tmp_path / f"t{i:04d}.json", trajectory(*[f"root {i} step {k} SCORE:0.9" for k in range(STEPS)]))
    judge = _ProvenanceCounting()
    options, criteria = parse_parameters({**CUSTOM, "concurrency_limit": CONCURRENCY})
    results = asyncio.run(score_paths([tmp_path], options, criteria, judge, JobContext("m")))
    assert results.summary.counts["steps_scored"] == 20 * STEPS
    assert judge.alive and judge.alive[-1] == 0  # the 20 roots' outline trees were held to the end before


_SAMPLERS: list[Callable[[str], None]] = []
_HOOKED: list[Any] = []


def _on_audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _SAMPLERS and isinstance(args[0], str | PurePath):
        _SAMPLERS[-1](str(args[0]))


def most_held_while_reading(folder: Path, roots: int) -> tuple[int, int]:
    """The most paths and documents alive as any input of ``roots`` trajectories is opened to build the outline.

    Python's audit hook on ``open`` samples them (a hook cannot be removed: call it in a process of its own).
    """
    for i in range(roots):
        write(folder / f"t{i:04d}.json", trajectory(*[f"root {i} step {k}" for k in range(STEPS)]))
    if _on_audit not in _HOOKED:
        sys.addaudithook(_on_audit)
        _HOOKED.append(_on_audit)
    gc.collect()
    before = {id(o) for o in gc.get_objects()}
    most, opened = [0, 0], [0]

    def sample(path: str) -> None:
        if path.startswith(str(folder)):
            opened[0] += 1
            if opened[0] % 25 and opened[0] != roots:  # a sample walks every object: a few suffice
                return
            new = [o for o in gc.get_objects() if id(o) not in before]
            most[0] = max(most[0], sum(isinstance(o, PurePath) for o in new))
            most[1] = max(most[1], sum(isinstance(o, Document) for o in new))

    _SAMPLERS.append(sample)
    try:
        kept = read_collection([folder])
    finally:
        _SAMPLERS.remove(sample)
    assert len(kept.outline.roots) == roots and opened[0] >= roots
    return most[0], most[1]


_MEASURE = """
import sys
from pathlib import Path
from tests.atif.test_run_memory import most_held_while_reading
folder = Path(sys.argv[1])
most_held_while_reading(folder / "warm", 2)
print(*most_held_while_reading(folder / "small", 10), *most_held_while_reading(folder / "large", 100))
"""


def test_reading_the_outline_keeps_no_path_or_document_per_file(tmp_path: Path) -> None:
    """Measured in a child process: the audit hook it installs cannot be removed, so it ends with that process."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(tmp_path)], cwd=root, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    small_paths, small_documents, large_paths, large_documents = map(int, done.stdout.split())
    assert large_paths <= small_paths + 2 and large_documents <= small_documents + 2  # before: one of each per file
