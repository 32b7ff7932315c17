from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from evalhub.adapter import JobResults

from tests.integrations.conftest import JOB_ID, AdapterFactory, run
from tests.integrations.servers import _Recorder, events
from tracegrade.errors import TracegradeError
from tracegrade.integrations.evalhub import AtifAdapter
from tracegrade.judge.testing import ScriptedJudgeServer, ScriptedReply

PHASES = ["initializing", "loading_data", "running_evaluation", "post_processing"]


def test_a_job_reports_every_phase_then_its_metrics(
    make_adapter: AdapterFactory, corpus: Path, sink: _Recorder
) -> None:
    results = run(make_adapter, {"trajectory_path": str(corpus)})

    posted = events(sink)
    phases = [e.get("phase") for e in posted if e["status"] == "running"]
    assert [p for i, p in enumerate(phases) if i == 0 or p != phases[i - 1]] == PHASES
    assert [e["status"] for e in posted].count("completed") == 1 and posted[-1]["status"] == "completed"
    assert posted[-1]["metrics"] == {
        "atif_overall_score": 0.75,
        "atif_trajectory_count": 4,
        "atif_failure_categorization_rate": 1.0,
        "overall_score": 0.75,
        "num_examples_evaluated": 4,
    }
    assert posted[-1]["overall_score"] == 0.75 and "mlflow_run_id" not in posted[-1]
    assert results.num_examples_evaluated == 4 and results.duration_seconds > 0
    assert results.mlflow_run_id is None  # no experiment, no MLflow run


@pytest.mark.parametrize(
    ("parameters", "code", "named"),
    [
        ({"completion_threshold": 7}, "invalid_parameter", "completion_threshold"),
        ({"no_such_knob": 1}, "invalid_parameter", "no_such_knob"),
        ({"trajectory_path": "/nonexistent/atif"}, "invalid_input", "/nonexistent/atif"),
    ],
)
def test_bad_jobs_fail_with_a_safe_one_line_reason(
    make_adapter: AdapterFactory, sink: _Recorder, parameters: dict[str, object], code: str, named: str
) -> None:
    adapter, callbacks = make_adapter(parameters)
    with pytest.raises(TracegradeError):
        adapter.run_benchmark_job(adapter.job_spec, callbacks)
    last = events(sink)[-1]
    assert last["status"] == "failed" and last["error_message"]["message_code"] == code
    message = last["error_message"]["message"]
    assert named in message and "\n" not in message and "Traceback" not in message
    assert "completed" not in [e["status"] for e in events(sink)]


def test_a_failed_scoring_run_fails_the_job_with_its_reason(
    make_adapter: AdapterFactory, corpus: Path, sink: _Recorder, judge: ScriptedJudgeServer
) -> None:
    judge.set_rule(lambda request: ScriptedReply.error(400))
    adapter, callbacks = make_adapter({"trajectory_path": str(corpus)})
    with pytest.raises(TracegradeError):
        adapter.run_benchmark_job(adapter.job_spec, callbacks)
    error = events(sink)[-1]["error_message"]
    assert error["message_code"] == "job_failed" and "http_status_400" in error["message"]
    assert adapter.output_dir is not None and (adapter.output_dir / "evaluation_results.json").is_file()


def test_unexpected_errors_never_leak_their_text(
    make_adapter: AdapterFactory, corpus: Path, sink: _Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("Authorization: Bearer sk-live-123 at http://user:pw@host")

    monkeypatch.setattr("tracegrade.integrations.evalhub._adapter.run_atif_job", explode)
    adapter, callbacks = make_adapter({"trajectory_path": str(corpus)})
    with pytest.raises(RuntimeError):
        adapter.run_benchmark_job(adapter.job_spec, callbacks)
    last = events(sink)[-1]
    assert last["status"] == "failed" and last["error_message"]["message_code"] == "internal_error"
    assert "sk-live" not in str(last) and "pw@" not in str(last) and "RuntimeError" in str(last)


def test_results_are_written_in_the_local_job_folder(make_adapter: AdapterFactory, corpus: Path) -> None:
    adapter, callbacks = make_adapter({"trajectory_path": str(corpus)})
    adapter.run_benchmark_job(adapter.job_spec, callbacks)
    assert adapter.output_dir is not None
    assert adapter.output_dir.parent.name == "atif_trajectory_default" and adapter.output_dir.name == "results"
    assert sorted(p.name for p in adapter.output_dir.iterdir()) == [
        "evaluation_results.json",
        "manifest.json",
        "report.html",
        "steps.parquet",
        "summary.json",
    ]
    assert JOB_ID in str(adapter.output_dir)


def test_a_failed_job_in_cluster_mode_saves_its_results_to_mlflow(
    make_adapter: AdapterFactory,
    corpus: Path,
    sink: _Recorder,
    judge: ScriptedJudgeServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    saved: list[dict[str, bytes]] = []

    def save_run(callbacks: object, spec: object, outcome: JobResults, params: object, artifacts: dict[str, Path],
                 backend: object) -> str:
        saved.append({name: path.read_bytes() for name, path in artifacts.items()})  # read before any cleanup
        return "run-1"

    monkeypatch.setattr("tracegrade.integrations.evalhub._adapter.save_run", save_run)
    monkeypatch.setattr(AtifAdapter, "local_jobs_base_path", property(lambda self: None))  # no job folder
    judge.set_rule(lambda request: ScriptedReply.error(400))
    adapter, callbacks = make_adapter({"trajectory_path": str(corpus)}, experiment_name="exp")
    with pytest.raises(TracegradeError):
        adapter.run_benchmark_job(adapter.job_spec, callbacks)
    (files,) = saved
    assert set(files) >= {"evaluation_results.json", "summary.json"}
    assert orjson.loads(files["summary.json"])["job_status"] == "failed"
    posted = events(sink)
    assert "persisting_artifacts" in [e.get("phase") for e in posted]
    assert posted[-1]["status"] == "failed" and posted[-1]["error_message"]["message_code"] == "job_failed"
