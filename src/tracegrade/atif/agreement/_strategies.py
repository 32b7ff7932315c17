"""Localisation results scored against labels: agent-level and step-level accuracy, and within ±1 / ±3 steps.

These are the measures of the Who&When benchmark. Per labelled trajectory (a label with ``decisive``
true, the agent in ``extra.mistake_agent`` as ``import whowhen`` writes it), a localisation is right at
the agent level when it names that agent and at the step level when it names that step. A trajectory
the strategy ran on without naming a step counts as a miss; one where the judge gave no usable answer
is left out and listed (a protocol failure is never a score). Steps of different nodes are never within
any distance of each other.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from tracegrade.atif.agreement._agree import match_labels
from tracegrade.atif.agreement._labels import Label, decisive_labels, names_step
from tracegrade.atif.agreement._localise import share_estimate
from tracegrade.atif.agreement._records import Estimate, LabelIssue
from tracegrade.atif.localising._records import (
    LocalisationResults,
    LocaliseStatus,
    LocatedStep,
    TrajectoryLocalisation,
)
from tracegrade.atif.reading._records import FrozenRecord
from tracegrade.atif.scoring._results import EvaluationResults

__all__ = ["LOCALISATION_AGREEMENT_FORMAT", "LocalisationAgreement", "StrategyAgreement", "StrategyRow",
           "measure_localisations"]

LOCALISATION_AGREEMENT_FORMAT = "tracegrade.atif.localisation-agreement/1"


class StrategyRow(FrozenRecord):
    """One labelled trajectory: what the labels say and what the strategy named."""

    node_id: str
    line: int
    """Line of the decisive label."""
    labelled_agent: str | None
    labelled_step: int | None
    """The labelled step's logical index (null: a ``step_id`` label in a segment the run does not place)."""
    agent: str | None
    step: int | None
    """The named step's index (null: none named)."""
    distance: int | None
    """Steps between the named and the labelled step (null: none named, or another node)."""


class StrategyAgreement(FrozenRecord):
    """How often one localisation run names the labelled agent and step."""

    strategy: str
    """The strategy, with ``+ ground truth`` when the judge saw the reference answer."""
    source: str
    """The ``localisation.json`` read."""
    trajectories: int
    """Labelled trajectories compared."""
    agent: Estimate
    """Agent-level accuracy, over trajectories whose label names the agent."""
    step: Estimate
    """Step-level accuracy (the exact step)."""
    within_1: Estimate
    within_3: Estimate
    rows: list[StrategyRow] = Field(default_factory=list)
    excluded: list[LabelIssue] = Field(default_factory=list)
    """Labelled trajectories left out: not localised in this run, or the judge gave no usable answer."""


class LocalisationAgreement(FrozenRecord):
    """Everything ``tracegrade agree`` found comparing localisation runs with the labels."""

    format: str = LOCALISATION_AGREEMENT_FORMAT
    labels_file: str
    labels: int
    """Decisive-step labels in the file."""
    resamples: int
    level: float
    seed: int
    strategies: list[StrategyAgreement]


def measure_localisations(runs: Sequence[tuple[str, LocalisationResults]], labels: Sequence[Label], *, labels_file: str,
                          resamples: int = 2000, level: float = 0.95, seed: int = 0,
                          results: EvaluationResults | None = None) -> LocalisationAgreement:
    """Score each ``(source, localisation)`` against the decisive-step labels (named by ``step`` or ``step_id``).

    ``results``, the judge run the labels belong to, places a ``step_id`` label on the logical step when the
    named step lies in another segment; without it such a label's distance is known only within its segment.

    Raises:
        InputError: a trajectory has more than one decisive step label.
    """
    decisive = decisive_labels(labels)
    places = _places(results, decisive) if results is not None else {}
    strategies = [_strategy(source, found, decisive, places, resamples, level, seed) for source, found in runs]
    return LocalisationAgreement(labels_file=labels_file, labels=len(decisive), resamples=resamples, level=level,
                                 seed=seed, strategies=strategies)


def _places(results: EvaluationResults, decisive: list[Label]) -> dict[int, tuple[str, int]]:
    """Each decisive label's node and logical step in the run, by the label's line."""
    matches, _ = match_labels(results, decisive)
    return {m.label.line: (m.node.node_id, m.step.index) for m in matches if m.step is not None}


def _strategy(source: str, results: LocalisationResults, decisive: list[Label], places: dict[int, tuple[str, int]],
              resamples: int, level: float, seed: int) -> StrategyAgreement:
    rows: list[StrategyRow] = []
    excluded: list[LabelIssue] = []
    for label in decisive:
        found = _find(results.trajectories, label)
        if found is None or found.status is LocaliseStatus.FAILED:
            reason = "not_localised" if found is None else f"judge_failed:{found.error_code}"
            excluded.append(LabelIssue(line=label.line, target=label.target(), reason=reason, measure="localisation"))
            continue
        rows.append(_row(found, label, places.get(label.line)))
    named = [row for row in rows if row.labelled_agent is not None]

    def estimate(hits: list[bool], empty: str = "no labelled trajectory localised") -> Estimate:
        return share_estimate(hits, level, resamples, seed, empty)

    gt = results.parameters.with_ground_truth and results.parameters.strategy.value != "from-scores"
    return StrategyAgreement(
        strategy=results.parameters.strategy.value + (" + ground truth" if gt else ""),
        source=source,
        trajectories=len(rows),
        agent=estimate([row.agent == row.labelled_agent for row in named], "no label names the agent"),
        step=estimate([row.distance == 0 for row in rows]),
        within_1=estimate([row.distance is not None and row.distance <= 1 for row in rows]),
        within_3=estimate([row.distance is not None and row.distance <= 3 for row in rows]),
        rows=rows,
        excluded=excluded,
    )


def _find(rows: Sequence[TrajectoryLocalisation], label: Label) -> TrajectoryLocalisation | None:
    for row in rows:
        if label.node_id is not None and (label.node_id == row.node_id or label.node_id.startswith(row.node_id + "::")):
            return row
        if label.node_id is None and label.trajectory_id is not None and label.trajectory_id == row.trajectory_id:
            return row
    return None


def _row(found: TrajectoryLocalisation, label: Label, place: tuple[str, int] | None) -> StrategyRow:
    extra = label.extra or {}
    agent = extra.get("mistake_agent")
    node = place[0] if place else (label.node_id or found.node_id)
    step = found.step
    same_node = step is not None and step.node_id == node
    labelled = _labelled_index(label, step if same_node else None, place)
    distance = None
    if step is not None and same_node:
        if names_step(label, index=step.index, step_id=step.step_id, segment=step.segment):
            distance = 0
        elif labelled is not None:
            distance = abs(step.index - labelled)
    return StrategyRow(
        node_id=found.node_id, line=label.line, labelled_agent=agent if isinstance(agent, str) else None,
        labelled_step=labelled, agent=found.agent, step=step.index if step else None, distance=distance,
    )


def _labelled_index(label: Label, step: LocatedStep | None, place: tuple[str, int] | None) -> int | None:
    """The labelled step's logical index: given, found in the run, or placed by the named step of its segment.

    ``step_id`` is the position in its segment, so the named step's segment offset carries over.
    """
    if label.step is not None:
        return label.step
    if place is not None:
        return place[1]
    if step is not None and label.step_id is not None and step.segment == label.segment:
        return step.index - step.step_id + label.step_id
    return None
