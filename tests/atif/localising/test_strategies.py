"""Each strategy against a scripted judge that answers from the plant, over real HTTP."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.atif.helpers import write
from tests.atif.localising.plant import document, enum_first_rule, hand_crafted, plant_rule, planted_tree, steps
from tracegrade.atif import (
    JudgeTarget,
    LocalisationResults,
    LocaliseOptions,
    Strategy,
    localise_inputs,
    run_localise_job,
)
from tracegrade.atif.importing import import_whowhen
from tracegrade.judge.testing import ScriptedJudgeServer

ASKING = (Strategy.ALL_AT_ONCE, Strategy.STEP_BY_STEP, Strategy.BINARY_SEARCH)


@pytest.fixture
def server() -> Iterator[ScriptedJudgeServer]:
    with ScriptedJudgeServer(plant_rule) as running:
        yield running


def localise(server: ScriptedJudgeServer, root: Path, **options: object) -> LocalisationResults:
    target = JudgeTarget(url=server.base_url, model="scripted")
    return asyncio.run(run_localise_job(localise_inputs([root]), LocaliseOptions.model_validate(options), target,
                                        job_id="t", cache_path=None))


@pytest.mark.parametrize("where", ["start", "end", "subagent", "continuation"])
@pytest.mark.parametrize("strategy", ASKING, ids=lambda s: s.value)
def test_every_strategy_recovers_the_planted_step(server: ScriptedJudgeServer, tmp_path: Path, where: str,
                                                  strategy: Strategy) -> None:
    root, plant = planted_tree(tmp_path, where)
    found = localise(server, root, strategy=strategy).trajectories[0]
    assert found.status == "localised" and found.step is not None
    assert found.step.node_id.endswith(plant["node"]) and found.step.index == plant["index"]
    assert found.agent == plant["agent"] and found.used is strategy and found.fallback is None
    assert found.calls == server.count  # every question reached the judge, and was counted


@pytest.mark.parametrize("n", [2, 7, 16, 33, 100])
def test_binary_search_takes_about_log2_n_calls(server: ScriptedJudgeServer, tmp_path: Path, n: int) -> None:
    root = write(tmp_path / "r.json", document(steps(n + 1, plant=n)))  # n candidates after the user's turn
    found = localise(server, root, strategy=Strategy.BINARY_SEARCH, max_context_bytes=1 << 20).trajectories[0]
    assert found.step is not None and found.step.index == n
    assert math.floor(math.log2(n)) <= server.count <= math.ceil(math.log2(n)) and found.calls == server.count


def test_step_by_step_stops_at_the_first_decisive_step(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    root = write(tmp_path / "r.json", document(steps(20, plant=6)))
    found = localise(server, root, strategy=Strategy.STEP_BY_STEP).trajectories[0]
    assert found.step is not None and found.step.index == 6 and server.count == 5  # the user's turn is not asked


def test_step_by_step_that_finds_nothing_says_so(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    root = write(tmp_path / "r.json", document(steps(5)))
    results = localise(server, root, strategy=Strategy.STEP_BY_STEP)
    found = results.trajectories[0]
    assert (found.status, found.step, found.agent, found.calls) == ("none_found", None, None, 4)
    assert results.summary.none_found == 1


def test_an_all_at_once_request_over_budget_falls_back_to_binary_search_and_says_so(
    server: ScriptedJudgeServer, tmp_path: Path
) -> None:
    big = steps(40, plant=31)
    for step in big:
        step["message"] += " " + "filler " * 60
    root = write(tmp_path / "r.json", document(big))
    results = localise(server, root, strategy=Strategy.ALL_AT_ONCE, max_context_bytes=16384)
    found = results.trajectories[0]
    assert found.strategy is Strategy.ALL_AT_ONCE and found.used is Strategy.BINARY_SEARCH
    assert found.fallback is not None and "needs" in found.fallback and "16384" in found.fallback
    assert found.step is not None and found.step.index == 31 and results.summary.fallbacks == 1
    assert found.left_out > 0  # the first halves were shown shortened, and that is counted
    assert server.count == found.calls <= math.ceil(math.log2(40))


def test_a_tree_that_fits_no_request_fails_with_context_overflow(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    root = write(tmp_path / "r.json", document(steps(200, plant=3)))
    results = localise(server, root, strategy=Strategy.BINARY_SEARCH, max_context_bytes=4096)
    found = results.trajectories[0]
    assert (found.status, found.error_code, results.summary.failed) == ("failed", "context_overflow", 1)
    assert server.count == 0
    fell_back = localise(server, root, strategy=Strategy.ALL_AT_ONCE, max_context_bytes=4096).trajectories[0]
    assert fell_back.error_code == "context_overflow" and fell_back.used is Strategy.BINARY_SEARCH
    assert fell_back.fallback is not None and server.count == 0


def test_the_ground_truth_is_shown_only_when_asked_and_known(server: ScriptedJudgeServer, tmp_path: Path) -> None:
    root = write(tmp_path / "r.json", document(steps(4, plant=2), extra={"reference_answer": "forty-two"}))
    without = localise(server, root).trajectories[0]
    assert not without.ground_truth and b"forty-two" not in server.requests[-1].body
    shown = localise(server, root, with_ground_truth=True).trajectories[0]
    assert shown.ground_truth and b"forty-two" in server.requests[-1].body
    other = write(tmp_path / "o" / "r.json", document(steps(4, plant=2)))
    assert not localise(server, other, with_ground_truth=True).trajectories[0].ground_truth


@pytest.mark.parametrize("strategy", ASKING, ids=lambda s: s.value)
def test_hand_crafted_logs_offer_their_agents_and_never_the_users_turn(tmp_path: Path, strategy: Strategy) -> None:
    """A judge that blames the first thing it may blame gets the orchestrator's first turn, not the user's."""
    (tmp_path / "log.json").write_bytes(orjson.dumps(hand_crafted()))
    import_whowhen([tmp_path / "log.json"], tmp_path / "ww")
    with ScriptedJudgeServer(enum_first_rule) as judge:
        found = localise(judge, tmp_path / "ww" / "trajectories", strategy=strategy).trajectories[0]
    assert found.agents == ["Orchestrator", "WebSurfer"]  # the names the file gives, annotation removed
    assert found.step is not None and found.step.index == 2 and found.agent == "Orchestrator"


def test_the_users_turn_is_a_candidate_when_asked_for(tmp_path: Path) -> None:
    (tmp_path / "log.json").write_bytes(orjson.dumps(hand_crafted()))
    import_whowhen([tmp_path / "log.json"], tmp_path / "ww")
    with ScriptedJudgeServer(enum_first_rule) as judge:
        found = localise(judge, tmp_path / "ww" / "trajectories", user_candidates=True).trajectories[0]
    assert found.agents == ["user", "Orchestrator", "WebSurfer"] and found.step is not None
    assert found.step.index == 1 and found.agent == "user"
