"""Hand-built localisation results and labels for the agreement tests (no judge involved)."""

from __future__ import annotations

import random

from tracegrade.atif.agreement._labels import Label
from tracegrade.atif.localising._params import LocaliseOptions, Strategy
from tracegrade.atif.localising._records import (
    LocalisationResults,
    LocalisationSummary,
    LocaliseStatus,
    LocatedStep,
    TrajectoryLocalisation,
)

AGENTS = ("planner", "coder", "checker", "browser")


def row(node_id: str, agent: str | None, index: int | None, *, status: LocaliseStatus = LocaliseStatus.LOCALISED,
        node: str | None = None) -> TrajectoryLocalisation:
    step = None if index is None else LocatedStep(ref=f"T0.{index}", node_id=node or node_id, index=index,
                                                  step_id=index, segment=0, position=index - 1)
    return TrajectoryLocalisation(node_id=node_id, trajectory_id=node_id.removesuffix(".json"), selected="every root",
                                  status=status if index is not None or status is LocaliseStatus.FAILED
                                  else LocaliseStatus.NONE_FOUND,
                                  strategy=Strategy.ALL_AT_ONCE, used=Strategy.ALL_AT_ONCE, agent=agent, step=step,
                                  steps=20, error_code="schema_violation" if status is LocaliseStatus.FAILED else None)


def localised(*rows: TrajectoryLocalisation, strategy: Strategy = Strategy.ALL_AT_ONCE,
              ground_truth: bool = False) -> LocalisationResults:
    summary = LocalisationSummary(trajectories=len(rows), localised=0, none_found=0, failed=0, fallbacks=0, calls=0)
    return LocalisationResults(job_id="l", created_at="2026-01-01T00:00:00+00:00", source={},
                               parameters=LocaliseOptions(strategy=strategy, with_ground_truth=ground_truth),
                               summary=summary, trajectories=list(rows))


def decisive(node_id: str, index: int, agent: str | None, line: int) -> Label:
    return Label(line=line, trajectory_id=node_id.removesuffix(".json"), step=index, decisive=True, failed=True,
                 extra={"mistake_agent": agent} if agent else None)


def planted(n: int, p_step: float, p_agent: float, rng: random.Random, steps: int = 20
            ) -> tuple[LocalisationResults, list[Label]]:
    """``n`` labelled trajectories and a simulated localiser right about the step with probability ``p_step`` (else
    another step, uniformly) and about the agent with probability ``p_agent`` (else another agent)."""
    rows, labels = [], []
    for i in range(n):
        index, agent = rng.randint(1, steps), rng.choice(AGENTS)
        named = index if rng.random() < p_step else rng.choice([s for s in range(1, steps + 1) if s != index])
        who = agent if rng.random() < p_agent else rng.choice([a for a in AGENTS if a != agent])
        rows.append(row(f"t{i}.json", who, named))
        labels.append(decisive(f"t{i}.json", index, agent, i + 1))
    return localised(*rows), labels
