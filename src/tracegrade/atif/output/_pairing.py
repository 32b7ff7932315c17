"""Root trajectories of two runs paired by a stable identity, and their nodes and steps matched inside each pair."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from tracegrade.atif.output._compared import ComparedNode, ComparedStep

__all__ = ["PAIRING_METHODS", "Paired", "Pairing", "matched_nodes", "matched_steps", "pair_by", "pair_roots",
           "root_trees"]

N = TypeVar("N")

PAIRING_METHODS = ("trajectory_id", "session_id", "relative_path", "task_hash")
"""How roots pair, tried in this order: a root pairs by the first key it shares, uniquely, with the other run."""


@dataclass(frozen=True)
class Paired(Generic[N]):
    """Two roots that are the same trajectory in both runs."""

    id: str
    """The pair's name: the baseline root's path relative to its input root."""
    matched_by: str
    baseline: N
    candidate: N


@dataclass(frozen=True)
class Pairing(Generic[N]):
    """The pairs, the roots left alone on each side, and how many pairs each method made."""

    pairs: list[Paired[N]]
    only_in_baseline: list[str]
    only_in_candidate: list[str]
    methods: dict[str, int]


_KEYS: dict[str, Callable[[ComparedNode], str | None]] = {
    "trajectory_id": lambda node: node.trajectory_id, "session_id": lambda node: node.session_id,
    "relative_path": lambda node: node.node_id, "task_hash": lambda node: (node.criteria or {}).get("task_hash"),
}


def _unique(roots: dict[str, N], key: Callable[[N], str | None]) -> dict[str, str]:
    """Key → root id, for keys that exactly one root has."""
    keyed = [(key(node), root_id) for root_id, node in roots.items()]
    counts = Counter(k for k, _ in keyed if k is not None)
    return {k: root_id for k, root_id in keyed if k is not None and counts[k] == 1}


def pair_by(left: dict[str, N], right: dict[str, N], key_of: Callable[[str], Callable[[N], str | None]]) -> Pairing[N]:
    """Pair two runs' roots (by root id) with the keys of :data:`PAIRING_METHODS` in turn, each used where unique.

    ``key_of`` gives a method's key of a root (None where the root has none); every root ends up in a pair or
    in an ``only_in`` list.
    """
    left, right = dict(left), dict(right)
    pairs: list[Paired[N]] = []
    methods = dict.fromkeys(PAIRING_METHODS, 0)
    for method in PAIRING_METHODS:
        key = key_of(method)
        mine, theirs = _unique(left, key), _unique(right, key)
        for value, root_id in mine.items():
            if value in theirs:
                pairs.append(Paired(root_id, method, left.pop(root_id), right.pop(theirs[value])))
                methods[method] += 1
    pairs.sort(key=lambda p: p.id)
    return Pairing(pairs, sorted(left), sorted(right), methods)


def pair_roots(baseline: Sequence[ComparedNode], candidate: Sequence[ComparedNode]) -> Pairing[ComparedNode]:
    """Pair the roots (depth 0) of two runs; every root ends up in a pair or in an ``only_in`` list."""
    return pair_by({n.node_id: n for n in baseline if n.depth == 0}, {n.node_id: n for n in candidate if n.depth == 0},
                   _KEYS.__getitem__)


def root_trees(nodes: Iterable[ComparedNode]) -> dict[str, list[ComparedNode]]:
    """Nodes by the root they belong to, in their order."""
    trees: dict[str, list[ComparedNode]] = defaultdict(list)
    for node in nodes:
        trees[node.root_id].append(node)
    return trees


def _relative(node: ComparedNode) -> str:
    """A node's place under its root: empty for the root, else the rest of its id."""
    return node.node_id[len(node.root_id):] if node.node_id.startswith(node.root_id) else node.node_id


def matched_nodes(
    baseline: Sequence[ComparedNode], candidate: Sequence[ComparedNode]
) -> Iterator[tuple[str, ComparedNode | None, ComparedNode | None]]:
    """Every node of the pair's two trees, matched by its place under the root (None where one side lacks it)."""
    left = {_relative(n): n for n in baseline}
    right = {_relative(n): n for n in candidate}
    for place in sorted(left.keys() | right.keys()):
        yield place, left.get(place), right.get(place)


def matched_steps(
    baseline: ComparedNode, candidate: ComparedNode
) -> Iterator[tuple[ComparedStep, ComparedStep]]:
    """Steps of two matched nodes that share their identity (segment and step id)."""
    right = {(s.segment, s.step_id): s for s in candidate.steps}
    for step in baseline.steps:
        other = right.get((step.segment, step.step_id))
        if other is not None:
            yield step, other
