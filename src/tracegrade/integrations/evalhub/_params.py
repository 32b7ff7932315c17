"""From an EvalHub job spec to tracegrade's scoring parameters and judge target."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from evalhub.adapter import JobSpec, read_model_auth_key

from tracegrade.atif import JudgeTarget
from tracegrade.errors import ConfigError

__all__ = ["JUDGE_KEY_ENV", "KEY_ENV_SETTING", "job_parameters", "judge_target"]

JUDGE_KEY_ENV = "TRACEGRADE_EVALHUB_JUDGE_API_KEY"
"""Where the adapter keeps a key read from ``model.auth`` (the judge reads keys from the environment)."""

KEY_ENV_SETTING = "TRACEGRADE_JUDGE_API_KEY_ENV"
"""Provider environment variable naming the variable that holds the judge's API key."""

_DEFAULT_PROXY = "http://localhost:8080"


def job_parameters(spec: JobSpec) -> dict[str, Any]:
    """The job's scoring parameters: ``parameters`` with ``num_examples`` put back (the server lifts it out)."""
    parameters = dict(spec.parameters)
    if spec.num_examples is not None:
        parameters.setdefault("num_examples", spec.num_examples)
    return parameters


def judge_target(spec: JobSpec, environ: Mapping[str, str] | None = None) -> JudgeTarget:
    """The judge of an EvalHub job: ``model.url`` and ``model.name``, with its credential.

    In Kubernetes mode the judge client talks to the sidecar, which adds the credential. In
    local mode the key comes from the ``api-key`` file of ``model.auth.secret_ref`` when the
    spec has one, else from the variable named by ``TRACEGRADE_JUDGE_API_KEY_ENV``.

    Raises:
        ConfigError: no judge endpoint, or a credential that the spec asks for is missing.
    """
    env = os.environ if environ is None else environ
    k8s = env.get("EVALHUB_MODE", "").strip().lower() == "k8s"
    url = spec.model.url.strip()
    if k8s and not url:
        url = env.get("EVALHUB_JUDGE_PROXY_URL") or _DEFAULT_PROXY
    if not url:
        raise ConfigError("model.url: the judge needs an OpenAI-compatible endpoint URL")
    return JudgeTarget(url=url, model=spec.model.name, api_key_env=None if k8s else _key_env(spec, env))


def _key_env(spec: JobSpec, env: Mapping[str, str]) -> str | None:
    if spec.model.auth is None:
        named = env.get(KEY_ENV_SETTING, "").strip()
        return named or None
    try:
        key = read_model_auth_key("api-key")
    except ValueError:
        raise ConfigError("model.auth: secret_ref must be a file:/// URL of an existing directory") from None
    if key is None:
        raise ConfigError("model.auth: the secret directory holds no readable api-key file", code="missing_api_key")
    os.environ[JUDGE_KEY_ENV] = key
    return JUDGE_KEY_ENV
