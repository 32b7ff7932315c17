"""Status events of one EvalHub job: phases, live progress, and a safe failure message."""

from __future__ import annotations

import asyncio
import logging
import re
import threading

from evalhub.adapter import JobCallbacks, JobPhase, JobStatus, JobStatusUpdate, MessageInfo

from tracegrade.atif.scoring import RunProgress
from tracegrade.errors import TracegradeError

__all__ = ["StatusReporter", "failure_message"]

logger = logging.getLogger(__name__)

_MAX_MESSAGE = 500
_BEARER = re.compile(r"(?i)bearer\s+\S+")
_URL_USERINFO = re.compile(r"(?i)(\w+://)[^/\s@]+@")


def failure_message(exc: BaseException) -> MessageInfo:
    """One line for a failed job: the error code and a short reason, never a traceback or a secret.

    Only tracegrade's own errors contribute their text (they are written to be safe to show);
    anything else is named by its type alone, since its text may quote a credential.
    """
    if isinstance(exc, TracegradeError):
        code, text = exc.code, exc.message
    elif isinstance(exc, KeyboardInterrupt):
        code, text = "job_interrupted", "the adapter was interrupted"
    else:
        code, text = "internal_error", f"unexpected {type(exc).__name__} in the adapter (see the job log)"
    line = f"{code}: " + _URL_USERINFO.sub(r"\1", _BEARER.sub("Bearer ***", " ".join(text.split())))
    if len(line) > _MAX_MESSAGE:
        line = line[: _MAX_MESSAGE - 1] + "…"
    return MessageInfo(message=line, message_code=code)


class StatusReporter:
    """Posts the job's phase changes and progress through the SDK callbacks, one post at a time.

    Args:
        callbacks: The job's callbacks.
        interval: Seconds between progress polls while the evaluation runs.
    """

    def __init__(self, callbacks: JobCallbacks, *, interval: float = 1.0) -> None:
        self._callbacks = callbacks
        self._interval = interval
        self._lock = threading.Lock()
        self.phase: JobPhase | None = None

    def enter(self, phase: JobPhase, message: str, progress: float | None = None) -> None:
        """Post a phase change."""
        self.phase = phase
        self._post(
            JobStatusUpdate(
                status=JobStatus.RUNNING,
                phase=phase,
                progress=progress,
                message=MessageInfo(message=message, message_code=phase.value),
            )
        )

    def failed(self, exc: BaseException) -> None:
        """Post FAILED with a safe one-line message (never raises)."""
        error = failure_message(exc)
        update = JobStatusUpdate(
            status=JobStatus.FAILED,
            phase=self.phase,
            error_message=error,
            message=MessageInfo(message="Evaluation failed", message_code="evaluation_failed"),
        )
        try:
            self._post(update)
        except Exception:  # the process is about to exit non-zero; the log keeps the reason
            logger.exception("could not report the failure: %s", error.message)

    async def watch(self, started: asyncio.Event, progress: RunProgress) -> None:
        """Post ``running_evaluation`` once scoring starts, then the step progress every interval until cancelled."""
        await started.wait()
        await asyncio.to_thread(self.enter, JobPhase.RUNNING_EVALUATION, _describe(progress), 0.0)
        last = (0, progress.steps_total)
        while True:
            await asyncio.sleep(self._interval)
            now = (progress.steps_done, progress.steps_total)
            if now != last:
                last = now
                await asyncio.to_thread(self.progress, progress)

    def progress(self, progress: RunProgress) -> None:
        """Post the share of steps scored so far."""
        total = progress.steps_total
        fraction = min(progress.steps_done / total, 1.0) if total else 0.0
        self._post(
            JobStatusUpdate(
                status=JobStatus.RUNNING,
                phase=JobPhase.RUNNING_EVALUATION,
                progress=round(fraction, 4),
                completed_steps=progress.steps_done,
                total_steps=total,
                message=MessageInfo(message=_describe(progress), message_code="running_evaluation"),
            )
        )

    def _post(self, update: JobStatusUpdate) -> None:
        with self._lock:
            self._callbacks.report_status(update)


def _describe(progress: RunProgress) -> str:
    errors = f", {progress.step_errors} failed" if progress.step_errors else ""
    return f"scored {progress.steps_done}/{progress.steps_total} steps{errors}"
