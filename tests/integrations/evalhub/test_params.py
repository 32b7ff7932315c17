from __future__ import annotations

from pathlib import Path

import pytest

from tests.integrations.conftest import AdapterFactory, run, spec
from tests.integrations.servers import _Recorder, events
from tracegrade.errors import ConfigError, TracegradeError
from tracegrade.integrations.evalhub import job_parameters, judge_target
from tracegrade.judge.testing import ScriptedJudgeServer


def test_num_examples_goes_back_into_the_parameters() -> None:
    assert job_parameters(spec(parameters={"scoring_mode": "auto"}, num_examples=3)) == {
        "scoring_mode": "auto",
        "num_examples": 3,
    }
    assert job_parameters(spec(parameters={"num_examples": 2}, num_examples=3))["num_examples"] == 2


def test_the_judge_is_the_jobs_model() -> None:
    target = judge_target(spec(), environ={})
    assert (target.url, target.model, target.api_key_env) == ("http://judge:8000/v1", "judge-model", None)


def test_a_key_variable_can_be_named_by_the_provider_environment() -> None:
    target = judge_target(spec(), environ={"TRACEGRADE_JUDGE_API_KEY_ENV": "OPENAI_API_KEY"})
    assert target.api_key_env == "OPENAI_API_KEY"


def test_kubernetes_mode_leaves_the_credential_to_the_sidecar() -> None:
    target = judge_target(spec(model={"url": "", "name": "m"}), environ={"EVALHUB_MODE": "k8s"})
    assert target.url == "http://localhost:8080" and target.api_key_env is None


def test_local_mode_needs_a_judge_url() -> None:
    with pytest.raises(ConfigError, match=r"model\.url"):
        judge_target(spec(model={"url": "", "name": "m"}), environ={})


def test_num_examples_lifted_out_by_the_server_still_applies(make_adapter: AdapterFactory, corpus: Path) -> None:
    results = run(make_adapter, {"trajectory_path": str(corpus)}, num_examples=1)
    assert results.evaluation_metadata["atif_roots"] == 1
    assert results.evaluation_metadata["atif_num_examples"] == 1


def test_the_key_named_by_model_auth_reaches_the_judge(
    make_adapter: AdapterFactory,
    corpus: Path,
    judge: ScriptedJudgeServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "api-key").write_text("sk-test-42\n")
    adapter, callbacks = make_adapter(
        {"trajectory_path": str(corpus)},
        model={"url": judge.base_url, "name": "scripted-judge", "auth": {"secret_ref": secrets.as_uri()}},
    )
    monkeypatch.setenv("EVALHUB_JOB_SPEC_PATH", str(adapter.settings.job_spec_path))
    adapter.run_benchmark_job(adapter.job_spec, callbacks)
    assert {r.headers.get("authorization") for r in judge.requests} == {"Bearer sk-test-42"}


def test_a_missing_key_file_fails_without_guessing(
    make_adapter: AdapterFactory, corpus: Path, sink: _Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-secrets"
    empty.mkdir()
    adapter, callbacks = make_adapter(
        {"trajectory_path": "/unused"},
        model={"url": "http://127.0.0.1:9", "name": "j", "auth": {"secret_ref": empty.as_uri()}},
    )
    monkeypatch.setenv("EVALHUB_JOB_SPEC_PATH", str(adapter.settings.job_spec_path))
    with pytest.raises(TracegradeError):
        adapter.run_benchmark_job(adapter.job_spec, callbacks)
    assert events(sink)[-1]["error_message"]["message_code"] == "missing_api_key"


def test_kubernetes_mode_may_name_its_own_proxy() -> None:
    target = judge_target(spec(model={"url": " ", "name": "m"}),
                          environ={"EVALHUB_MODE": " K8S ", "EVALHUB_JUDGE_PROXY_URL": "http://proxy:9000"})
    assert target.url == "http://proxy:9000"


def test_a_secret_ref_that_is_not_a_file_url_is_refused(
    make_adapter: AdapterFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter, _ = make_adapter({}, model={"url": "http://j/v1", "name": "m", "auth": {"secret_ref": "vault://judge"}})
    monkeypatch.setenv("EVALHUB_JOB_SPEC_PATH", str(adapter.settings.job_spec_path))
    with pytest.raises(ConfigError, match="secret_ref must be a file:/// URL"):
        judge_target(adapter.job_spec, environ={})
