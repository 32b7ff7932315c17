"""EvalHub integration: the ATIF framework adapter, its entry point and its provider definition.

EvalHub runs ``python -m tracegrade.integrations.evalhub`` once per benchmark job; the adapter
reads the job spec, scores the trajectories named by ``trajectory_path`` with the job's model as
judge, reports every phase, saves the run to MLflow when the job has an experiment, and reports
the metrics. ``tracegrade evalhub provider-yaml`` prints the provider definition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.integrations.evalhub._adapter import AtifAdapter as AtifAdapter
    from tracegrade.integrations.evalhub._main import main as main
    from tracegrade.integrations.evalhub._params import job_parameters as job_parameters
    from tracegrade.integrations.evalhub._params import judge_target as judge_target
    from tracegrade.integrations.evalhub._provider import BENCHMARK_ID as BENCHMARK_ID
    from tracegrade.integrations.evalhub._provider import DEFAULT_IMAGE as DEFAULT_IMAGE
    from tracegrade.integrations.evalhub._provider import PLACEHOLDER_NOTE as PLACEHOLDER_NOTE
    from tracegrade.integrations.evalhub._provider import PROVIDER_ID as PROVIDER_ID
    from tracegrade.integrations.evalhub._provider import provider_config as provider_config
    from tracegrade.integrations.evalhub._provider import provider_yaml as provider_yaml
    from tracegrade.integrations.evalhub._results import check_outcome as check_outcome
    from tracegrade.integrations.evalhub._results import evaluation_metadata as evaluation_metadata
    from tracegrade.integrations.evalhub._results import job_metrics as job_metrics
    from tracegrade.integrations.evalhub._results import job_results as job_results
    from tracegrade.integrations.evalhub._status import failure_message as failure_message

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
