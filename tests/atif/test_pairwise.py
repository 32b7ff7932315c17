"""``compare --pairwise`` end to end against the scripted judge on the bundled examples."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.atif.scripted import marker_rule, positional_rule, trajectory, write
from tracegrade.atif import ComparisonOptions, JudgeTarget
from tracegrade.atif.modes import PairwiseOutcome, compare_pairwise
from tracegrade.errors import InputError
from tracegrade.judge import JudgeOptions
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.stats import GateOptions

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BASE, REGRESSED = EXAMPLES / "atif", EXAMPLES / "atif-regressed"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The baseline's sales-report (unchanged) with the regressed bugfix-session."""
    folder = tmp_path_factory.mktemp("mixed")
    shutil.copytree(REGRESSED / "bugfix-session", folder / "bugfix-session")
    shutil.copytree(BASE / "sales-report", folder / "sales-report")
    return folder


@pytest.fixture
def server() -> Iterator[ScriptedJudgeServer]:
    with ScriptedJudgeServer(marker_rule) as running:
        yield running


def _run(server: ScriptedJudgeServer, baseline: Path, candidate: Path, *, cache: Path | None = None,
         gate: GateOptions | None = None, budget: int | None = None) -> PairwiseOutcome:
    options = JudgeOptions() if budget is None else JudgeOptions(max_context_bytes=budget)
    return asyncio.run(compare_pairwise(
        baseline, candidate, JudgeTarget(url=server.base_url, model="scripted"), options,
        options=ComparisonOptions(resamples=200), gate=gate or GateOptions(), cache_path=cache))


def _outcomes(outcome: PairwiseOutcome) -> dict[str, str]:
    return {p.id: p.outcome for p in outcome.comparison.pairs}


def test_planted_regressions_lose(server: ScriptedJudgeServer) -> None:
    c = _run(server, BASE, REGRESSED, gate=GateOptions(fail_on_new_failures=True)).comparison
    assert _outcomes_of(c) == {"bugfix-session/trajectory.json": "loss", "sales-report/trajectory.json": "loss"}
    assert c.counts["loss"] == 2 and c.n == 2 and c.loss_rate.value == 1.0 and c.net_win_rate.value == -1.0
    assert c.pairing["session_id"] + c.pairing["trajectory_id"] == 2
    assert c.gate.exit_code == 1 and c.sign_test_p == 0.5  # 2 losses of 2: 2 * 0.5**2
    assert server.count == 4  # two orders per pair


def _outcomes_of(c: object) -> dict[str, str]:
    return {p.id: p.outcome for p in c.pairs}  # type: ignore[attr-defined]


def test_unchanged_pairs_tie_and_swapping_the_runs_swaps_wins_and_losses(server: ScriptedJudgeServer,
                                                                        mixed: Path) -> None:
    forward = _run(server, BASE, mixed)
    backward = _run(server, mixed, BASE)
    assert _outcomes(forward) == {"bugfix-session/trajectory.json": "loss", "sales-report/trajectory.json": "tie"}
    assert _outcomes(backward) == {"bugfix-session/trajectory.json": "win", "sales-report/trajectory.json": "tie"}
    f, b = forward.comparison, backward.comparison
    assert (f.counts["win"], f.counts["loss"]) == (b.counts["loss"], b.counts["win"]) == (0, 1)
    assert f.net_win_rate.value == -0.5 and b.net_win_rate.value == 0.5
    reasons = [a.reason for p in f.pairs for a in p.answers]
    assert all(r and r.startswith("bad cues") for r in reasons)


def test_a_judge_answering_by_position_is_position_bias_not_preference(mixed: Path) -> None:
    with ScriptedJudgeServer(positional_rule) as server:
        c = _run(server, BASE, mixed).comparison
    # bugfix-session differs: "first" in both orders -> position bias; sales-report is identical -> tie
    assert _outcomes_of(c) == {"bugfix-session/trajectory.json": "position_bias", "sales-report/trajectory.json": "tie"}
    assert c.position_bias_rate.value == 0.5 and c.win_rate.value == 0.0 and c.loss_rate.value == 0.0


def test_answers_come_from_the_judge_cache_the_second_time(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    first = _run(server, BASE, REGRESSED, cache=cache)
    asked = server.count
    again = _run(server, BASE, REGRESSED, cache=cache)
    assert server.count == asked == 4 and again.comparison.judge_calls["cache_hits"] == 4
    assert _outcomes(first) == _outcomes(again)


def test_trajectories_too_long_for_the_budget_are_shown_compact_or_refused(server: ScriptedJudgeServer) -> None:
    full = _run(server, BASE, REGRESSED).comparison
    assert {a.view for p in full.pairs for a in p.answers} == {"full"}
    compact = _run(server, BASE, REGRESSED, budget=7000).comparison
    views = {a.view for p in compact.pairs for a in p.answers}
    assert "compact" in views and _outcomes_of(compact) == _outcomes_of(full)
    refused = _run(server, BASE, REGRESSED, budget=4096).comparison
    assert {p.outcome for p in refused.pairs} == {"refused"} and refused.n == 0
    assert refused.pairs[0].error is not None and "max_context_bytes" in refused.pairs[0].error


def test_sides_without_pairs_are_refused(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    write(tmp_path / "other.json", trajectory("another task", "SCORE:0.5"))
    with pytest.raises(InputError, match="no trajectory pairs") as info:
        _run(server, BASE / "bugfix-session", tmp_path)
    assert info.value.exit_code == 2 and server.count == 0
