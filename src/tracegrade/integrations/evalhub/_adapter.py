"""The EvalHub framework adapter: one ATIF scoring job per EvalHub benchmark job."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from evalhub.adapter import AdapterSettings, FrameworkAdapter, JobCallbacks, JobPhase, JobResults, JobSpec
from opentelemetry.sdk.metrics import MeterProvider

from tracegrade.atif import (
    CriteriaParams,
    EvaluationResults,
    JobContext,
    JudgeTarget,
    ScoringOptions,
    parse_parameters,
    run_atif_job,
    write_artifacts,
)
from tracegrade.atif.scoring import RunProgress, ScoringEngine
from tracegrade.errors import TracegradeError
from tracegrade.integrations.evalhub._mlflow import save_run
from tracegrade.integrations.evalhub._params import job_parameters, judge_target
from tracegrade.integrations.evalhub._results import check_outcome, job_results
from tracegrade.integrations.evalhub._status import StatusReporter
from tracegrade.integrations.mlflow import run_params
from tracegrade.judge import configure_meter_provider

__all__ = ["AtifAdapter"]

logger = logging.getLogger(__name__)


class AtifAdapter(FrameworkAdapter):
    """Scores the ATIF trajectories named by a job's ``trajectory_path`` with the job's model as judge.

    Every phase is reported (initializing, loading_data, running_evaluation with step progress,
    post_processing, persisting_artifacts). Any failure is reported as FAILED with a one-line
    message and re-raised; COMPLETED is left to ``callbacks.report_results``.

    Args:
        settings: SDK settings (default: from the environment).
        job_spec_path: Job spec file (default: ``EVALHUB_JOB_SPEC_PATH``, else the mode's default).
        progress_interval: Seconds between progress reports while scoring.
    """

    def __init__(
        self,
        settings: AdapterSettings | None = None,
        job_spec_path: str | None = None,
        *,
        progress_interval: float = 1.0,
    ) -> None:
        super().__init__(settings, job_spec_path)
        self.progress_interval = progress_interval
        self.output_dir: Path | None = None
        """Folder of the last job's artifacts."""

    def run_benchmark_job(self, config: JobSpec, callbacks: JobCallbacks) -> JobResults:
        """Run the job; on any error report FAILED (safe message) and re-raise."""
        reporter = StatusReporter(callbacks, interval=self.progress_interval)
        try:
            return asyncio.run(self._run(config, callbacks, reporter))
        except BaseException as exc:
            logger.error("job %s failed: %s", config.id, type(exc).__name__)
            reporter.failed(exc)
            raise

    async def _run(self, spec: JobSpec, callbacks: JobCallbacks, reporter: StatusReporter) -> JobResults:
        started = time.monotonic()
        reporter.enter(JobPhase.INITIALIZING, "validating the job parameters")
        options, criteria = parse_parameters(job_parameters(spec))
        target = judge_target(spec)
        reporter.enter(JobPhase.LOADING_DATA, f"reading trajectories from {options.trajectory_path}")
        results = await self._score(spec, options, criteria, target, reporter)
        reporter.enter(JobPhase.POST_PROCESSING, "writing the results")
        self.output_dir = self._output_dir()
        artifacts = write_artifacts(results, self.output_dir)
        outcome = job_results(spec, results, time.monotonic() - started)
        try:
            check_outcome(results)
        except TracegradeError:
            # What was computed before the failure must outlive a pod's temporary folder.
            self._save_failed(callbacks, spec, outcome, results, artifacts, reporter)
            raise
        if spec.experiment_name:
            reporter.enter(JobPhase.PERSISTING_ARTIFACTS, f"saving to MLflow experiment {spec.experiment_name}")
            run_id = save_run(callbacks, spec, outcome, run_params(results), artifacts, self.settings.mlflow_backend)
            outcome.mlflow_run_id = run_id
        outcome.duration_seconds = round(time.monotonic() - started, 3)
        return outcome

    def _save_failed(
        self,
        callbacks: JobCallbacks,
        spec: JobSpec,
        outcome: JobResults,
        results: EvaluationResults,
        artifacts: Mapping[str, Path],
        reporter: StatusReporter,
    ) -> None:
        """Save a failed job's finished results to MLflow (when it has an experiment); never masks the failure."""
        if not spec.experiment_name:
            logger.warning("job %s failed; its partial results are in %s", spec.id, self.output_dir)
            return
        reporter.enter(JobPhase.PERSISTING_ARTIFACTS, f"saving the failed job's results to {spec.experiment_name}")
        try:
            save_run(callbacks, spec, outcome, run_params(results), artifacts, self.settings.mlflow_backend)
        except TracegradeError:
            logger.warning("job %s failed and its partial results stay in %s", spec.id, self.output_dir)

    async def _score(
        self,
        spec: JobSpec,
        options: ScoringOptions,
        criteria: CriteriaParams,
        target: JudgeTarget,
        reporter: StatusReporter,
    ) -> EvaluationResults:
        progress = RunProgress()
        scoring = asyncio.Event()
        watcher = asyncio.create_task(reporter.watch(scoring, progress))
        meters = configure_meter_provider(service_name="tracegrade-evalhub")
        try:
            with _interruptible() as attach:

                def on_engine(engine: ScoringEngine) -> None:
                    attach(engine)
                    scoring.set()

                results, _ = await run_atif_job(
                    [options.trajectory_path],
                    options,
                    criteria,
                    target,
                    JobContext(spec.id, progress=progress, on_engine=on_engine),
                    out_dir=None,
                    cache_path=None,
                    meter_provider=meters,
                )
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
            await asyncio.to_thread(_shutdown, meters)
        await asyncio.to_thread(reporter.progress, progress)  # the final count, however fast the run was
        return results

    def _output_dir(self) -> Path:
        """``<job folder>/results`` in local mode, else a new temporary folder."""
        try:
            base = self.local_jobs_base_path
        except AssertionError:
            base = None
        if base is not None:
            return base / "results"
        return Path(tempfile.mkdtemp(prefix="tracegrade-evalhub-"))


@contextlib.contextmanager
def _interruptible() -> Iterator[Callable[[ScoringEngine], None]]:
    """SIGTERM (a cancelled job) and Ctrl-C stop scoring cleanly: finished steps are kept, the job fails."""
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []

    def attach(engine: ScoringEngine) -> None:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, engine.interrupt)
                installed.append(signum)

    try:
        yield attach
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


def _shutdown(meters: MeterProvider) -> None:
    """Export what is left and stop the metric readers (a failing exporter must not fail the job)."""
    try:
        meters.shutdown()
    except Exception:
        logger.warning("OpenTelemetry metrics could not be flushed", exc_info=True)
