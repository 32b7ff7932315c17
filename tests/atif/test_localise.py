"""One localisation job with I/O: what it reads (trajectories or a judge run) and what it writes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.atif.helpers import write
from tests.atif.localising.plant import document, steps
from tests.render.html_checks import check_report
from tracegrade.atif import (
    LocaliseOptions,
    Strategy,
    localise_inputs,
    read_localisation,
    run_localise_job,
    write_localisation,
)
from tracegrade.atif.localising._records import LocalisationResults
from tracegrade.atif.output._artifacts import write_artifacts
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import InputError
from tracegrade.runs import read_manifest


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A judge run folder of one failed trajectory, as ``tracegrade judge`` leaves it."""
    from tests.atif.localising.test_localise import judged

    write(tmp_path / "in" / "a.json", document(steps(5, plant=3), trajectory_id="a"))
    results = judged(tmp_path / "in", {"plant": 0.0, "other": 0.3})
    write_artifacts(results, tmp_path / "run")
    return tmp_path / "run"


def from_scores(run: Path) -> LocalisationResults:
    inputs = localise_inputs([run])
    return asyncio.run(run_localise_job(inputs, LocaliseOptions(strategy=Strategy.FROM_SCORES), None, job_id="l",
                                        cache_path=None))


def test_a_run_folder_or_its_results_file_reads_the_trajectories_it_scored(run: Path, tmp_path: Path) -> None:
    for given in (run, run / "evaluation_results.json"):
        inputs = localise_inputs([given])
        assert inputs.paths == (tmp_path / "in",) and inputs.run is not None and inputs.run_folder == run
        assert inputs.source()["run"] == {"folder": str(run), "job_id": "run"}
    plain = localise_inputs([tmp_path / "in"])
    assert plain.run is None and plain.source() == {"paths": [str(tmp_path / "in")]}


def test_a_run_whose_trajectories_are_gone_is_refused_naming_them(run: Path, tmp_path: Path) -> None:
    (tmp_path / "in" / "a.json").unlink()
    (tmp_path / "in").rmdir()
    with pytest.raises(InputError, match=r"not at .*in any more"):
        localise_inputs([run])


def test_written_into_the_run_folder_itself_the_manifest_is_amended(run: Path) -> None:
    results = from_scores(run)
    written = write_localisation(results, run, localise_inputs([run]))
    assert written == [run / "localisation.json", run / "report.html"]
    assert "localisation.json" in read_manifest(run)["files"]
    assert read_localisation(run) == results and read_localisation(run / "localisation.json") == results


def test_the_agreement_section_of_the_report_stays(run: Path, tmp_path: Path) -> None:
    from tracegrade.atif import measure_agreement
    from tracegrade.atif.agreement import read_labels

    labels = write(tmp_path / "labels.jsonl", b'{"trajectory_id": "a", "step": 3, "decisive": true}\n')
    report = measure_agreement(EvaluationResults.model_validate_json((run / "evaluation_results.json").read_bytes()),
                               read_labels(labels), labels_file="labels.jsonl", resamples=100)
    (run / "agreement.json").write_text(report.model_dump_json())
    write_localisation(from_scores(run), run, localise_inputs([run]))
    page = (run / "report.html").read_text()
    assert "Agreement with labels" in page and "Failure localisation" in page
    check_report(page)


def test_the_report_links_each_localised_trajectory_instead_of_printing_a_record(run: Path) -> None:
    write_localisation(from_scores(run), run, localise_inputs([run]))
    page = (run / "report.html").read_text()
    table = page.split('id="localisation-table"')[1].split("</table>")[0]
    assert "<td><a href=\"#node-" in table and "a.json</a></td>" in table
    check_report(page)  # before: {'text': 'a.json', 'href': '#node-…'} in the trajectory cell


def test_elsewhere_the_run_is_not_touched_and_an_incomplete_one_never_replaces_the_runs(run: Path,
                                                                                       tmp_path: Path) -> None:
    write_localisation(from_scores(run), run, localise_inputs([run]))
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    done = from_scores(run)
    write_localisation(done, tmp_path / "out", localise_inputs([run]))
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before
    failed = done.model_copy(update={"summary": done.summary.model_copy(update={"failed": 1})})
    assert write_localisation(failed, run, localise_inputs([run])) == [run / "localisation.incomplete.json"]
    after = {p.name: p.read_bytes() for p in run.iterdir()}
    assert after.pop("localisation.incomplete.json") and after == before


def test_reading_something_else_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no localisation\.json there"):
        read_localisation(tmp_path)
    write(tmp_path / "localisation.json", b"{}")
    with pytest.raises(InputError, match=r"not a tracegrade localisation\.json"):
        read_localisation(tmp_path)


def test_every_question_goes_through_the_shared_judge_with_its_metrics_and_cache(tmp_path: Path) -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from tests.atif.localising.plant import plant_rule
    from tracegrade.atif import JudgeTarget
    from tracegrade.judge.testing import ScriptedJudgeServer

    root = write(tmp_path / "in" / "r.json", document(steps(8, plant=5)))
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    options = LocaliseOptions(strategy=Strategy.BINARY_SEARCH)
    with ScriptedJudgeServer(plant_rule) as server:
        target = JudgeTarget(url=server.base_url, model="scripted")
        for _ in range(2):
            found = asyncio.run(run_localise_job(localise_inputs([root]), options, target, job_id="m",
                                                 cache_path=tmp_path / "cache.sqlite3",
                                                 meter_provider=meters))
        asked = server.count
    assert found.trajectories[0].step is not None and found.trajectories[0].step.index == 5
    assert asked == 3 and found.summary.judge["cache_hits"] == 3  # the rerun was answered from the cache
    names = {m.name for rm in reader.get_metrics_data().resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    assert "atif.judge.call.count" in names
