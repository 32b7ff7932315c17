"""``compare --judges``: two judges of the same trajectories, their agreement, shift and refusals."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.atif.coverage import assert_covers
from tests.atif.output.comparing import judged, trajectory
from tests.atif.scripted import CUSTOM, current_message, marker_rule, scripted_answer
from tracegrade.atif import ComparisonOptions
from tracegrade.atif.agreement._maths import Bootstrap, label_agreement
from tracegrade.atif.agreement._records import Estimate
from tracegrade.atif.output import compare_judges
from tracegrade.atif.output._compared import ComparedNode, ComparedStep
from tracegrade.atif.output._judges import MatchedTree, gate_verdict, measure_judges
from tracegrade.atif.scoring._records import NodeStatusCode, StepStatus
from tracegrade.errors import InputError
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply


def two_judges(request: ReceivedRequest) -> ScriptedReply:
    """``judge-a`` reads the SCORE marker; ``judge-b`` adds 0.1, and gives 0.1 to a step marked HARSH."""
    body = request.json()
    if body["model"] != "judge-b" or "<criteria>" not in body["messages"][-1]["content"]:
        return marker_rule(request)
    message = current_message(body["messages"][-1]["content"])
    found = re.search(r"SCORE:([0-9.]+)", message)
    value = 0.1 if "HARSH" in message else round(min(1.0, (float(found.group(1)) if found else 0.9) + 0.1), 6)
    return ScriptedReply.answer(scripted_answer(body, score=value))


DOCS = {
    "a.json": trajectory("task a SCORE:0.8", "SCORE:0.6", "SCORE:0.3 HARSH"),
    "b.json": trajectory("task b SCORE:0.9", "SCORE:0.2"),
    "c.json": trajectory("task c SCORE:0.5", "SCORE:0.7"),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("judges")
    with ScriptedJudgeServer(two_judges) as server:
        yield {
            "a": judged(server, root / "a", DOCS, model="judge-a"),
            "b": judged(server, root / "b", DOCS, model="judge-b"),
            "fewer": judged(server, root / "fewer", {k: DOCS[k] for k in ("a.json", "b.json")}, model="judge-b"),
            "threshold": judged(server, root / "threshold", DOCS, "--completion-threshold", "0.6", model="judge-b"),
            "rubric": judged(server, root / "rubric", DOCS, "--scoring-mode", "custom", "--rubric",
                             CUSTOM["custom_rubric"], model="judge-b"),
        }


def test_hand_computed_shift_and_the_most_disagreed_step(runs: dict[str, Path]) -> None:
    c = compare_judges(runs["a"], runs["b"], ComparisonOptions(resamples=200)).comparison
    # steps A: .8 .6 .3 | .9 .2 | .5 .7 ; B: .9 .7 .1 | 1.0 .3 | .6 .8 -> shifts .1 .1 -.2 .1 .1 .1 .1
    assert c.pairs == 3 and c.step.n == 7
    assert c.step.shift.value == pytest.approx(0.4 / 7)
    assert c.disagreements[0].pair == "a.json" and c.disagreements[0].index == 3
    assert (c.disagreements[0].score_a, c.disagreements[0].score_b) == (0.3, 0.1)
    assert c.step.spearman.value is not None and c.step.spearman.value > 0.8
    # step a.3 is low for both judges (0.3, 0.1); b.2 too (0.2, 0.3): pass/fail agrees everywhere
    assert c.step.pass_fail_agreement.value == 1.0 and c.step.matrix == [[2, 0], [0, 5]]
    by_source = {g.key: g.shift.value for g in c.shift_by if g.by == "source"}
    assert by_source["user"] == pytest.approx(0.1) and by_source["agent"] == pytest.approx(0.1 / 4)
    assert [d.field for d in c.judge_differences] == ["judge.model"]
    assert c.gate.checked == [] and c.gate.exit_code == 0


def test_a_run_against_itself_agrees_fully(runs: dict[str, Path]) -> None:
    c = compare_judges(runs["a"], runs["a"], ComparisonOptions(resamples=100)).comparison
    assert c.judge_differences == [] and c.disagreements == []
    assert c.step.kappa.value == 1.0 and c.step.shift.value == 0.0


def test_runs_of_different_trajectories_are_refused(runs: dict[str, Path]) -> None:
    with pytest.raises(InputError, match=r"c\.json is only in run A") as info:
        compare_judges(runs["a"], runs["fewer"])
    assert info.value.code == "not_same_trajectories" and info.value.exit_code == 2


def test_runs_scored_under_other_rules_are_refused_by_name(runs: dict[str, Path]) -> None:
    with pytest.raises(InputError, match="completion_threshold differs") as info:
        compare_judges(runs["a"], runs["threshold"])
    assert info.value.code == "not_comparable"
    allowed = compare_judges(runs["a"], runs["threshold"],
                             ComparisonOptions(resamples=50, allow_different=("completion_threshold",))).comparison
    assert [d.field for d in allowed.allowed_differences] == ["completion_threshold"]


def test_runs_under_another_rubric_are_refused(runs: dict[str, Path]) -> None:
    with pytest.raises(InputError, match="differs") as info:
        compare_judges(runs["a"], runs["rubric"])
    assert info.value.code == "not_comparable" and "judge.model" not in str(info.value)


def _step(index: int, score: float, failure: float = 0.5) -> ComparedStep:
    return ComparedStep(index=index, segment=0, step_id=index, source="agent", status=StepStatus.SCORED,
                        score=score, failure_candidate=score < failure)


def _node(name: str, scores: list[float]) -> ComparedNode:
    own = sum(scores) / len(scores)
    return ComparedNode(node_id=name, parent_id=None, root_id=name, trajectory_id=name, session_id=None, agent="a",
                        depth=0, status=NodeStatusCode.SCORED, own_score=own, aggregate=own, passed=own >= 0.5,
                        steps=tuple(_step(i, s) for i, s in enumerate(scores, start=1)))


def planted(n: int, kappa: float, failing: float, rng: random.Random) -> list[MatchedTree]:
    """Judge B copies judge A's low/not-low verdict with probability ``kappa``, else draws its own at the same rate:
    both flag ``failing`` of the steps, and Cohen's kappa of the two is ``kappa``."""
    trees = []
    for i in range(n):
        low_a = rng.random() < failing
        low_b = low_a if rng.random() < kappa else rng.random() < failing
        trees.append(MatchedTree(f"t{i}", [("", _node(f"t{i}", [0.2 if low_a else 0.8]),
                                             _node(f"t{i}", [0.2 if low_b else 0.8]))]))
    return trees


def test_the_planted_kappa_in_the_long_run() -> None:
    measured = measure_judges(planted(4000, 0.6, 0.4, random.Random(1)), completion_threshold=0.5,
                              failure_threshold=0.5, resamples=20)
    assert measured.step.kappa.value is not None and abs(measured.step.kappa.value - 0.6) < 0.04


def test_kappa_intervals_cover_the_planted_kappa() -> None:
    """80 one-step trajectories, 200 resamples, 250 seeded runs: covered as often as a 95 % interval should
    (the step pass/fail kappa of ``measure_judges`` is this ``label_agreement``; the long-run test checks it)."""
    runs, kappa = 250, 0.6
    covered = 0
    for seed in range(runs):
        trees = planted(80, kappa, 0.4, random.Random(seed))
        verdicts = [["low" if n.steps[0].failure_candidate else "not_low" for n in t.nodes[0][1:]] for t in trees]
        _, estimate = label_agreement([a for a, _ in verdicts], [b for _, b in verdicts], ("low", "not_low"),
                                      [t.pair for t in trees], Bootstrap(200, 0.95, seed))
        covered += estimate.low is not None and estimate.high is not None and estimate.low <= kappa <= estimate.high
    assert_covers(covered, runs)


def test_the_gate_fires_when_the_whole_interval_is_below_the_threshold() -> None:
    estimate = Estimate(value=0.3, low=0.2, high=0.45, n=80, units=80)
    assert gate_verdict(estimate, 0.5).exit_code == 1
    assert gate_verdict(estimate, 0.45).exit_code == 0  # the bound touching the threshold does not fire
    assert gate_verdict(estimate, 0.4).fired == []
    assert gate_verdict(estimate, None).checked == []
    undecided = gate_verdict(Estimate(value=None, n=1, units=1, reason="under 2 pairs"), 0.2)
    assert undecided.exit_code == 1 and "under 2 pairs" in undecided.fired[0]
