from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from evalhub.adapter import DefaultCallbacks, JobPhase, JobStatus, JobStatusUpdate

from tests.integrations.conftest import JOB_ID, AdapterFactory, run
from tests.integrations.servers import _Recorder, events
from tracegrade.atif.scoring import RunProgress
from tracegrade.errors import TracegradeError
from tracegrade.integrations.evalhub import failure_message
from tracegrade.integrations.evalhub._status import StatusReporter
from tracegrade.judge.testing import ScriptedJudgeServer


class Recording(DefaultCallbacks):
    """Callbacks that keep each status update instead of posting it."""

    def __init__(self) -> None:
        super().__init__(job_id=JOB_ID, benchmark_id="atif_trajectory_default", provider_id="atif")
        self.updates: list[JobStatusUpdate] = []

    def report_status(self, update: JobStatusUpdate) -> None:
        self.updates.append(update)


class Unreachable(DefaultCallbacks):
    """Callbacks whose every status post fails, as when the sidecar is gone."""

    def report_status(self, update: JobStatusUpdate) -> None:
        raise ConnectionError("sidecar gone")


def test_failure_messages_are_one_safe_line() -> None:
    message = failure_message(TracegradeError("judge said\nBearer abc.def at https://u:p@h/v1", code="judge_error"))
    assert message.message == "judge_error: judge said Bearer *** at https://h/v1"
    assert failure_message(ValueError("secret")).message == (
        "internal_error: unexpected ValueError in the adapter (see the job log)"
    )
    assert len(failure_message(TracegradeError("x" * 2000)).message) <= 500


def test_progress_is_reported_while_scoring(
    make_adapter: AdapterFactory, corpus: Path, sink: _Recorder, judge: ScriptedJudgeServer
) -> None:
    judge.latency = 0.05
    run(make_adapter, {"trajectory_path": str(corpus), "concurrency_limit": 2})
    adapter_progress = [e for e in events(sink) if e.get("phase") == "running_evaluation"]
    assert len(adapter_progress) >= 3  # the phase change and at least two progress polls


def test_a_phase_change_is_posted_as_running_with_its_phase() -> None:
    callbacks = Recording()
    status = StatusReporter(callbacks)
    status.enter(JobPhase.LOADING_DATA, "reading 3 files")
    (update,) = callbacks.updates
    assert (update.status, update.phase) == (JobStatus.RUNNING, JobPhase.LOADING_DATA)
    assert status.phase is JobPhase.LOADING_DATA
    assert update.message is not None and update.message.message == "reading 3 files"


def test_progress_is_the_share_of_steps_scored_and_never_above_one() -> None:
    callbacks = Recording()
    for done, total in ((1, 4), (5, 4), (0, 0)):
        StatusReporter(callbacks).progress(RunProgress(steps_total=total, steps_done=done, step_errors=1))
    assert [(u.progress, u.completed_steps, u.total_steps) for u in callbacks.updates] == [
        (0.25, 1, 4), (1.0, 5, 4), (0.0, 0, 0)]
    assert callbacks.updates[0].message is not None
    assert callbacks.updates[0].message.message == "scored 1/4 steps, 1 failed"


def test_a_failure_is_posted_with_its_safe_line_in_the_phase_it_happened() -> None:
    callbacks = Recording()
    status = StatusReporter(callbacks)
    status.enter(JobPhase.RUNNING_EVALUATION, "scoring")
    status.failed(TracegradeError("the judge refused every request", code="job_failed"))
    last = callbacks.updates[-1]
    assert (last.status, last.phase) == (JobStatus.FAILED, JobPhase.RUNNING_EVALUATION)
    assert last.error_message is not None
    assert last.error_message.message == "job_failed: the judge refused every request"


def test_a_failure_that_cannot_be_posted_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    status = StatusReporter(Unreachable(job_id=JOB_ID, benchmark_id="b", provider_id="atif"))
    status.failed(KeyboardInterrupt())
    assert "could not report the failure: job_interrupted: the adapter was interrupted" in caplog.text


async def posted(callbacks: Recording, count: int) -> None:
    """Let the event loop run until ``count`` updates were posted (a regression fails, never hangs)."""
    for _ in range(2000):
        if len(callbacks.updates) >= count:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"{len(callbacks.updates)} updates posted, expected {count}")


async def test_watching_starts_when_scoring_starts_and_posts_only_changes() -> None:
    callbacks, started, progress = Recording(), asyncio.Event(), RunProgress(steps_total=2)
    watcher = asyncio.create_task(StatusReporter(callbacks, interval=0.005).watch(started, progress))
    await asyncio.sleep(0.05)
    assert callbacks.updates == []  # nothing before scoring starts
    started.set()
    await posted(callbacks, 1)
    progress.steps_done = 2
    await posted(callbacks, 2)
    await asyncio.sleep(0.05)  # more polls without a change: nothing more is posted
    watcher.cancel()
    assert [(u.phase, u.progress) for u in callbacks.updates] == [
        (JobPhase.RUNNING_EVALUATION, 0.0), (JobPhase.RUNNING_EVALUATION, 1.0)]
