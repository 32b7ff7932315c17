from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.atif.agree_data import two_trajectories
from tests.atif.agreement.localised import localised, row
from tracegrade.atif.output._artifacts import write_artifacts
from tracegrade.cli._app import app, run_app
from tracegrade.runs import read_manifest


@pytest.fixture
def run(tmp_path: Path) -> Path:
    write_artifacts(two_trajectories(), tmp_path / "run")
    return tmp_path / "run"


def labels(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_agree_writes_json_and_html_next_to_the_run_and_lists_unmatched(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    path = labels(
        tmp_path,
        '{"trajectory_id": "A", "step": 2, "failed": true, "decisive": true}',
        '{"trajectory_id": "B", "step": 2, "failed": false}',
        '{"trajectory_id": "Z", "failed": true}',
    )
    assert run_app(app, ["agree", str(run), "--labels", str(path), "--resamples", "200"]) == 0
    report = orjson.loads((run / "agreement.json").read_bytes())
    assert report["format"] == "tracegrade.atif.agreement/1" and report["matched"] == 2
    assert report["unmatched"] == [{"line": 3, "target": "trajectory_id=Z", "reason": "no_trajectory", "measure": None}]
    assert report["localisation"]["exact"]["value"] == 1.0
    assert "Judge agreement with human labels" in (run / "agreement.html").read_text()
    out = capsys.readouterr().out
    assert "1 label(s) match nothing in the run" in out and "trajectory_id=Z" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_agree_adds_a_section_to_the_runs_report_and_keeps_the_folder_complete(run: Path, tmp_path: Path) -> None:
    assert "Agreement with labels" not in (run / "report.html").read_text()
    path = labels(tmp_path, '{"trajectory_id": "A", "step": 2, "failed": true, "decisive": true}')
    assert run_app(app, ["agree", str(run), "--labels", str(path), "--resamples", "200", "-q"]) == 0
    html = (run / "report.html").read_text()
    assert 'id="agreement"' in html and "Agreement with labels" in html and "1 of 1 labels" in html
    manifest = read_manifest(run)  # verifies every file, the rewritten report included
    assert {"agreement.json", "agreement.html", "report.html"} <= set(manifest["files"])


def test_agree_output_option_and_bad_labels_exit_2(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = labels(tmp_path, '{"trajectory_id": "A", "failed": true}')
    assert run_app(app, ["agree", str(run), "--labels", str(good), "-o", str(tmp_path / "x" / "a.json"), "-q"]) == 0
    assert (tmp_path / "x" / "a.json").is_file() and (tmp_path / "x" / "a.html").is_file()
    bad = labels(tmp_path, '{"trajectory_id": "A", "failed": true}', '{"trajectory_id": "A", "category": "x"}')
    assert run_app(app, ["agree", str(run), "--labels", str(bad)]) == 2
    assert f"{bad}:2: category" in capsys.readouterr().err


def test_agree_on_a_folder_without_results_exits_2(tmp_path: Path) -> None:
    path = labels(tmp_path, '{"trajectory_id": "A", "failed": true}')
    assert run_app(app, ["agree", str(tmp_path), "--labels", str(path)]) == 2


def test_labels_that_match_nothing_are_reported_and_exit_2(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labels(tmp_path, '{"trajectory_id": "Z", "failed": true}')
    assert run_app(app, ["agree", str(run), "--labels", str(path), "-q"]) == 2
    assert "none of its 1 labels names a trajectory or step" in capsys.readouterr().err
    assert orjson.loads((run / "agreement.json").read_bytes())["unmatched"][0]["reason"] == "no_trajectory"


def test_a_missing_labels_file_is_one_line_without_an_exception_name(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_app(app, ["agree", str(run), "--labels", str(tmp_path / "missing.jsonl")]) == 2
    expected = f"error: {tmp_path / 'missing.jsonl'}: cannot read: no such file or directory\n"
    assert capsys.readouterr().err == expected


def test_agree_reviewer_picks_one_reviewers_standing_labels(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labels(
        tmp_path,
        '{"trajectory_id": "A", "step": 2, "failed": false, "reviewer": "ann"}',
        '{"trajectory_id": "A", "step": 2, "reviewer": "ann", "retract": true}',
        '{"trajectory_id": "A", "step": 2, "failed": true, "decisive": true, "reviewer": "ann"}',
        '{"trajectory_id": "A", "step": 2, "failed": false, "reviewer": "bob"}',
    )
    out = tmp_path / "a.json"
    assert run_app(app, ["agree", str(run), "--labels", str(path), "-o", str(out), "-q"]) == 2
    assert "reviewers 'ann' and 'bob': choose one with --reviewer" in capsys.readouterr().err
    assert run_app(app, ["agree", str(run), "--labels", str(path), "-o", str(out), "-q", "--reviewer", "ann"]) == 0
    report = orjson.loads(out.read_bytes())
    assert report["matched"] == 1 and report["localisation"]["exact"]["value"] == 1.0
    assert report["step"]["pass_fail"]["matrix"][0] == [1, 0]  # ann's standing answer: failed
    assert run_app(app, ["agree", str(run), "--labels", str(path), "-o", str(out), "-q", "--reviewer", "cy"]) == 2
    assert "no labels by reviewer 'cy' (reviewers there: ann, bob)" in capsys.readouterr().err


def test_labels_by_step_id_give_the_same_localisation_figures_as_labels_by_step(run: Path, tmp_path: Path) -> None:
    found = localised(row("a.json", "coder", 2), row("b.json", "coder", 2))
    (run / "localisation.json").write_bytes(orjson.dumps(found.model_dump(mode="json")))
    figures = []
    for key in ("step", "step_id"):
        path = labels(tmp_path, f'{{"node_id": "a.json", "{key}": 2, "decisive": true, "failed": true}}',
                      f'{{"node_id": "b.json", "{key}": 3, "decisive": true, "failed": true}}')
        out = tmp_path / key / "agreement.json"
        assert run_app(app, ["agree", str(run), "--labels", str(path), "--resamples", "200", "-q", "-o", str(out)]) == 0
        lowest = orjson.loads(out.read_bytes())["localisation"]
        strategy = orjson.loads((out.parent / "localisation-agreement.json").read_bytes())["strategies"][0]
        figures.append(({k: lowest[k]["value"] for k in ("exact", "within_1", "within_3")}, lowest["trajectories"],
                        {k: strategy[k] for k in ("step", "within_1", "within_3", "trajectories")}))
    assert figures[0] == figures[1]
    assert figures[1][1] == 2 and figures[1][2]["trajectories"] == 2 and figures[1][2]["step"]["value"] == 0.5


@pytest.mark.parametrize("target", ["run/evaluation_results.json", "run/manifest.json", "labels.jsonl",
                                    "run/report.json"])  # its page would be run/report.html
def test_agree_never_writes_over_one_of_its_inputs(run: Path, tmp_path: Path, target: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = labels(tmp_path, '{"trajectory_id": "A", "failed": true}')
    before = {p: p.read_bytes() for p in (*run.iterdir(), path)}
    code = run_app(app, ["agree", str(run), "--labels", str(path), "-o", str(tmp_path / target), "-q"])
    assert code == 2 and "is one of the inputs" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in (*run.iterdir(), path)} == before
    read_manifest(run)
