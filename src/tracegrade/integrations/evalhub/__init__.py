"""EvalHub integration: the ATIF framework adapter, its entry point and its provider definition.

EvalHub runs ``python -m tracegrade.integrations.evalhub`` once per benchmark job; the adapter
reads the job spec, scores the trajectories named by ``trajectory_path`` with the job's model as
judge, reports every phase, saves the run to MLflow when the job has an experiment, and reports
the metrics. ``tracegrade evalhub provider-yaml`` prints the provider definition.
"""

from tracegrade.integrations.evalhub._adapter import AtifAdapter
from tracegrade.integrations.evalhub._main import main
from tracegrade.integrations.evalhub._params import job_parameters, judge_target
from tracegrade.integrations.evalhub._provider import BENCHMARK_ID, PROVIDER_ID, provider_config, provider_yaml
from tracegrade.integrations.evalhub._results import check_outcome, evaluation_metadata, job_metrics, job_results
from tracegrade.integrations.evalhub._status import failure_message

__all__ = [
    "BENCHMARK_ID",
    "PROVIDER_ID",
    "AtifAdapter",
    "check_outcome",
    "evaluation_metadata",
    "failure_message",
    "job_metrics",
    "job_parameters",
    "job_results",
    "judge_target",
    "main",
    "provider_config",
    "provider_yaml",
]
