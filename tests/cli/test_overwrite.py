"""One overwrite policy for every command that writes a folder: its own earlier run is resumed or replaced,
anything else is refused (exit 2) unless --overwrite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tracegrade.cli._app import app, dabench_app, run_app
from tracegrade.judge.testing import ScriptedJudgeServer, scripted_rule
from tracegrade.runs import claim_output

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with ScriptedJudgeServer(scripted_rule()) as server:
        yield f"{server.base_url}/v1"


@pytest.fixture
def runs(tmp_path: Path, url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TRACEGRADE_CACHE_DIR", str(tmp_path / "cache"))
    for name, folder, more in (("base", "atif", []), ("cand", "atif-regressed", []),
                               ("shard", "atif", ["--shard", "0/1"])):
        assert run_app(app, ["judge", str(EXAMPLES / folder), "--judge-url", url, "--judge-model", "m", "-q",
                             "-o", str(tmp_path / name), *more]) == 0
    return tmp_path


def commands(tmp_path: Path, url: str) -> dict[str, tuple[object, list[str]]]:
    judge = ["--judge-url", url, "--judge-model", "m"]
    return {
        "judge": (app, ["judge", str(EXAMPLES / "atif"), *judge, "-q"]),
        "localise": (app, ["localise", str(EXAMPLES / "atif"), "--strategy", "all-at-once", *judge, "-q"]),
        "compare": (app, ["compare", str(tmp_path / "base"), str(tmp_path / "cand"), "-q"]),
        "merge": (app, ["merge", str(tmp_path / "shard"), "-q"]),
        "import otel": (app, ["import", "otel", str(EXAMPLES / "traces" / "otel-genai.json"), "-q"]),
        "dabench eval-v2": (dabench_app, ["eval-v2", "demo-run", "--runs-root", str(EXAMPLES / "dabench" / "runs"),
                                          "--quiet"]),
    }


@pytest.mark.parametrize("name", ["judge", "localise", "compare", "merge", "import otel", "dabench eval-v2"])
def test_a_folder_holding_something_else_is_refused_unless_overwrite(
        name: str, runs: Path, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    command, args = commands(runs, url)[name]
    out = runs / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert run_app(command, [*args, "-o", str(out)]) == 2  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert f"{out}/ is not empty: it holds 1 entry and no run manifest" in " ".join(err.split())
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert run_app(command, [*args, "-o", str(out), "--overwrite"]) in (0, 1)  # type: ignore[arg-type]
    assert (out / "notes.txt").read_text() == "mine" and len(list(out.iterdir())) > 1
    fresh = runs / "fresh"
    for _ in range(2):  # its own earlier run: resumed or replaced, never refused
        assert run_app(command, [*args, "-o", str(fresh)]) in (0, 1)  # type: ignore[arg-type]


def test_the_output_of_another_command_is_named(runs: Path, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["compare", str(runs / "base"), str(runs / "cand"), "-q", "-o", str(runs / "cmp")]) == 0
    assert run_app(app, ["judge", str(EXAMPLES / "atif"), "--judge-url", url, "--judge-model", "m", "-q",
                         "-o", str(runs / "cmp")]) == 2
    assert "it holds the run of another command (atif-compare, job " in " ".join(capsys.readouterr().err.split())


def test_claim_output_accepts_missing_empty_own_and_refuses_the_rest(tmp_path: Path) -> None:
    claim_output(tmp_path / "missing", kind="k")
    (tmp_path / "empty").mkdir()
    claim_output(tmp_path / "empty", kind="k")
    imported = tmp_path / "imported"
    (imported / "trajectories").mkdir(parents=True)
    (imported / ".trajectories-abc").mkdir()
    claim_output(imported, kind="atif-import", own=("trajectories", ".trajectories-*"))
    (imported / "other.txt").write_text("x")
    with pytest.raises(Exception, match="holds 3 entries and no run manifest"):
        claim_output(imported, kind="atif-import", own=("trajectories", ".trajectories-*"))
