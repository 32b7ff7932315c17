"""The adapter's process entry point (``python -m tracegrade.integrations.evalhub``)."""

from __future__ import annotations

import logging
import sys

from evalhub.adapter import DefaultCallbacks

from tracegrade.errors import ExitCode, TracegradeError
from tracegrade.integrations.evalhub._adapter import AtifAdapter

__all__ = ["main"]

logger = logging.getLogger("tracegrade.integrations.evalhub")


def main() -> int:
    """Load the job spec, run the job, report the results; returns the process exit code.

    Failures inside the job are reported to EvalHub by the adapter before this returns
    non-zero. A job spec that cannot be read leaves nobody to report to: it is logged only.
    """
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # the SDK logs one line per status post
    try:
        adapter = AtifAdapter()
    except Exception as exc:
        logger.error("cannot read the job spec (%s); set EVALHUB_JOB_SPEC_PATH", type(exc).__name__)
        return int(ExitCode.INVALID_INPUT)
    callbacks = DefaultCallbacks.from_adapter(adapter)
    try:
        results = adapter.run_benchmark_job(adapter.job_spec, callbacks)
    except TracegradeError as exc:
        logger.error("job failed: %s: %s", exc.code, exc.message)
        return int(ExitCode.INTERRUPTED if exc.code == "job_interrupted" else exc.exit_code)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    except Exception:
        logger.exception("job failed unexpectedly")
        return int(ExitCode.OPERATIONAL)
    callbacks.report_results(results)
    logger.info("results of job %s reported (output in %s)", results.id, adapter.output_dir)
    return int(ExitCode.OK)
