from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
import yaml

from tests.integrations.conftest import AdapterFactory
from tests.integrations.servers import _Recorder, events
from tracegrade.atif import CriteriaInputs, ScoringOptions
from tracegrade.cli._app import app, run_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:evalhub.*")  # the SDK's own models


def test_provider_yaml_points_at_this_installation(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["evalhub", "provider-yaml", "--env", "OTEL_EXPORTER_OTLP_ENDPOINT=http://otel:4318"]) == 0
    provider = yaml.safe_load(capsys.readouterr().out)

    assert provider["id"] == "atif"
    assert (
        provider["runtime"]["local"]["command"] == f"{shlex.quote(sys.executable)} -m tracegrade.integrations.evalhub"
    )
    assert provider["runtime"]["local"]["env"] == [{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel:4318"}]
    assert provider["runtime"]["k8s"]["entrypoint"] == ["python", "-m", "tracegrade.integrations.evalhub"]
    (benchmark,) = provider["benchmarks"]
    assert benchmark["id"] == "atif_trajectory_default" and benchmark["pass_criteria"] == {"threshold": 0.5}
    assert benchmark["primary_score"] == {"metric": "atif_overall_score", "lower_is_better": False}
    declared = {p["name"] for p in provider["parameters"]}
    assert declared == set(ScoringOptions.model_fields) | set(CriteriaInputs.model_fields)


def test_provider_yaml_to_a_file_with_an_image(tmp_path: Path) -> None:
    target = tmp_path / "providers" / "atif.yaml"
    assert run_app(app, ["evalhub", "provider-yaml", "--image", "registry.local/tg:1", "-o", str(target)]) == 0
    assert yaml.safe_load(target.read_text())["runtime"]["k8s"]["image"] == "registry.local/tg:1"
    assert "placeholder" not in target.read_text()


def test_the_placeholder_image_is_named_as_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["evalhub", "provider-yaml"]) == 0
    captured = capsys.readouterr()
    assert "note: runtime.k8s.image quay.io/your-org/tracegrade:0.1.0 is a placeholder" in captured.err
    comments = [line for line in captured.out.splitlines() if line.startswith("#")]
    assert "is a placeholder" in " ".join(comments) and max(len(line) for line in comments) <= 100


def test_provider_yaml_refuses_a_malformed_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["evalhub", "provider-yaml", "--env", "NOVALUE"]) == 2
    assert "--env: expected NAME=VALUE" in capsys.readouterr().err


def test_evalhub_run_executes_the_job_spec(make_adapter: AdapterFactory, corpus: Path, sink: _Recorder) -> None:
    adapter, _ = make_adapter({"trajectory_path": str(corpus)})
    assert run_app(app, ["evalhub", "run", "--job-spec", str(adapter.settings.job_spec_path)]) == 0
    assert events(sink)[-1]["status"] == "completed"
    assert events(sink)[-1]["metrics"]["atif_trajectory_count"] == 4


def test_evalhub_run_exit_code_follows_the_failure(make_adapter: AdapterFactory, sink: _Recorder) -> None:
    adapter, _ = make_adapter({"completion_threshold": 7})
    assert run_app(app, ["evalhub", "run", "--job-spec", str(adapter.settings.job_spec_path)]) == 2
    assert events(sink)[-1]["status"] == "failed"


def test_evalhub_run_refuses_a_job_spec_that_is_not_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["evalhub", "run", "--job-spec", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"error: --job-spec: {tmp_path} is not a file"


def test_provider_yaml_takes_the_id_and_command_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["evalhub", "provider-yaml", "--provider-id", "atif-dev", "--command", "tg-adapter"]) == 0
    provider = yaml.safe_load(capsys.readouterr().out)
    assert (provider["id"], provider["runtime"]["local"]["command"]) == ("atif-dev", "tg-adapter")


def test_provider_yaml_env_names_are_trimmed_and_must_not_be_blank(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["evalhub", "provider-yaml", "--env", " OTEL_SERVICE_NAME =tg"]) == 0
    assert yaml.safe_load(capsys.readouterr().out)["runtime"]["local"]["env"] == [
        {"name": "OTEL_SERVICE_NAME", "value": "tg"}]
    assert run_app(app, ["evalhub", "provider-yaml", "--env", " =x"]) == 2
    assert "--env: expected NAME=VALUE, got ' =x'" in capsys.readouterr().err
