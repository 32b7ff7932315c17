"""Merge the shards of one job into the result an unsharded run of the same job produces.

Shards split a job by root trajectory (``--shard i/n``), so every node and step record belongs to
exactly one shard and is copied unchanged; the summary is recomputed from the merged records.
What cannot match an unsharded run, and is therefore not compared: ``created_at`` (the latest
shard's), ``shard`` (none), and the judge counters (summed; shards do not share criteria
derivations or a cache, so they may make more requests than one run).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from pathlib import PurePosixPath
from typing import Any, TypeVar

from tracegrade.atif.reading._records import InputAccount, InputStatus
from tracegrade.atif.scoring._assemble import summarize
from tracegrade.atif.scoring._params import SubagentAggregation
from tracegrade.atif.scoring._records import NodeResult
from tracegrade.atif.scoring._results import EvaluationResults, InputRecord, RunParameters
from tracegrade.errors import ConfigError
from tracegrade.runs import JobStatus, parse_shard

__all__ = ["merge_results"]

T = TypeVar("T")

_PER_SHARD_PARAMETERS = frozenset({"atif_complete"})
"""Parameters computed per shard (recomputed for the merge, so not compared)."""


def merge_results(results: Sequence[EvaluationResults]) -> EvaluationResults:
    """Combine every shard of one job (in any order) into one result.

    Nodes, steps and inputs come out in the order of an unsharded run, an input reported by
    several shards (a subagent file shared by roots of different shards) appears once, and the
    summary is recomputed: the job failed if a shard failed on its own account (fail_fast), and
    it is interrupted if a shard was.

    Raises:
        ConfigError: a result is not a shard, shards are missing or repeated, or they differ in
            job id, parameters or provenance, or overlap in nodes.
    """
    shards = _ordered_shards(results)
    _check_same_job(shards)
    first = shards[0]
    mode = SubagentAggregation(first.summary.subagent_aggregation)
    nodes = _merge_nodes(shards)
    inputs = _merge_ordered([s.inputs for s in shards], _input_key, lambda r: r)
    status, reason = _job_status(shards, mode)
    summary = summarize(nodes, _accounts(inputs), mode, job_status=status, failure_reason=reason,
                        judge_counts=_judge_counts(shards), repeats=first.parameters.judge_repeats)
    return EvaluationResults(
        job_id=first.job_id, created_at=max(s.created_at for s in shards), shard=None,
        parameters=first.parameters.model_copy(update={"atif_complete": summary.atif_complete}),
        provenance=_merged_provenance(shards), summary=summary, inputs=inputs, nodes=nodes,
    )


def _ordered_shards(results: Sequence[EvaluationResults]) -> list[EvaluationResults]:
    if not results:
        raise ConfigError("merge: give the results of every shard")
    by_index: dict[int, EvaluationResults] = {}
    counts: set[int] = set()
    for result in results:
        if result.shard is None:
            raise ConfigError(f"merge: a result of job {result.job_id} is not a shard (it was run without --shard)")
        shard = parse_shard(result.shard)
        if shard.index in by_index:
            raise ConfigError(f"merge: shard {shard} is given twice")
        by_index[shard.index] = result
        counts.add(shard.count)
    if len(counts) > 1:
        raise ConfigError(f"merge: shards of different splits ({', '.join(f'n={n}' for n in sorted(counts))})")
    count = counts.pop()
    missing = [f"{i}/{count}" for i in range(count) if i not in by_index]
    if missing:
        raise ConfigError(f"merge: missing shard(s) {', '.join(missing)}")
    return [by_index[i] for i in range(count)]


def _check_same_job(shards: Sequence[EvaluationResults]) -> None:
    first = shards[0]
    for other in shards[1:]:
        if other.job_id != first.job_id:
            raise ConfigError(
                f"merge: shards {first.shard} and {other.shard} come from different jobs "
                f"({first.job_id!r}, {other.job_id!r}); run every shard with the same --job-id"
            )
        keys = _differing(_comparable(first.parameters), _comparable(other.parameters))
        if keys:
            raise ConfigError(f"merge: shard {other.shard} was run with other parameters ({', '.join(keys)})")
        keys = _differing(_without_endpoint(first.provenance), _without_endpoint(other.provenance))
        if keys:
            raise ConfigError(f"merge: shard {other.shard} has another judge provenance ({', '.join(keys)})")
    if first.parameters.num_examples is not None:
        raise ConfigError("merge: num_examples limits every shard on its own, so the merge cannot equal one run")
    seen = Counter(n.node_id for s in shards for n in s.nodes)
    repeated = sorted(node_id for node_id, times in seen.items() if times > 1)
    if repeated:
        raise ConfigError(f"merge: node(s) scored by more than one shard: {', '.join(repeated[:5])}")


def _comparable(parameters: RunParameters) -> dict[str, Any]:
    return parameters.model_dump(mode="json", exclude=set(_PER_SHARD_PARAMETERS))


def _without_endpoint(provenance: dict[str, Any]) -> dict[str, Any]:
    """The provenance shards must agree on: shards may be judged by several endpoints serving one model."""
    judge = provenance.get("judge")
    if not isinstance(judge, dict):
        return provenance
    return {**provenance, "judge": {k: v for k, v in judge.items() if k != "endpoint"}}


def _merged_provenance(shards: Sequence[EvaluationResults]) -> dict[str, Any]:
    """The first shard's provenance, naming every endpoint that judged a shard (comma-separated, in order)."""
    first = shards[0].provenance
    judges = [s.provenance.get("judge") for s in shards]
    endpoints = list(dict.fromkeys(j["endpoint"] for j in judges if isinstance(j, dict) and "endpoint" in j))
    if len(endpoints) < 2 or not isinstance(first.get("judge"), dict):
        return first
    return {**first, "judge": {**first["judge"], "endpoint": ", ".join(endpoints)}}


def _differing(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    return sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k) or (k in a) != (k in b))


def _merge_nodes(shards: Sequence[EvaluationResults]) -> list[NodeResult]:
    """Root trees (a root and its descendants, contiguous in tree order) interleaved in loader order."""
    trees = [_trees(s.nodes) for s in shards]
    merged = _merge_ordered(trees, lambda tree: _root_key(tree[0]), lambda tree: tree[0].node_id)
    return [node for tree in merged for node in tree]


def _trees(nodes: Sequence[NodeResult]) -> list[tuple[NodeResult, ...]]:
    trees: list[list[NodeResult]] = []
    for node in nodes:
        if not trees or node.root_id != trees[-1][0].root_id:
            trees.append([])
        trees[-1].append(node)
    return [tuple(tree) for tree in trees]


def _root_key(root: NodeResult) -> tuple[Any, ...]:
    """The loader's order of roots: by resolved file path (compared part by part), then by JSONL line."""
    _, _, suffix = root.node_id.rpartition(":")
    return (PurePosixPath(root.source_path).parts, int(suffix) if suffix.isdigit() else 0)


def _input_key(record: InputRecord) -> tuple[Any, ...]:
    """The loader's order of inputs: skipped files, then documents by path and line, then reference problems."""
    rank = 0 if record.status == InputStatus.SKIPPED.value else 2 if "#" in record.location else 1
    line = record.location.removeprefix("line ")
    return (rank, PurePosixPath(record.path).parts, int(line) if line.isdigit() else 0, record.location)


def _merge_ordered(
    sequences: Iterable[Sequence[T]], key: Callable[[T], Any], ident: Callable[[T], Hashable]
) -> list[T]:
    """Interleave sequences that each follow one unknown total order, keeping every sequence's order.

    Items with the same identity (the n-th of them in each sequence) are emitted once; when several
    items may come next, the one with the smallest ``key`` does.
    """
    items, successors, waiting = _precedence(sequences, ident)
    order = {node: i for i, node in enumerate(items)}
    ready = [(key(items[n]), order[n], n) for n in items if waiting[n] == 0]
    heapq.heapify(ready)
    merged: list[T] = []
    while ready:
        _, _, current = heapq.heappop(ready)
        merged.append(items[current])
        for nxt in successors.get(current, ()):
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                heapq.heappush(ready, (key(items[nxt]), order[nxt], nxt))
    return merged


_Node = tuple[Hashable, int]


def _precedence(
    sequences: Iterable[Sequence[T]], ident: Callable[[T], Hashable]
) -> tuple[dict[_Node, T], dict[_Node, set[_Node]], Counter[_Node]]:
    """Items by (identity, occurrence), each item's successors, and how many predecessors each waits for."""
    items: dict[_Node, T] = {}
    successors: dict[_Node, set[_Node]] = {}
    waiting: Counter[_Node] = Counter()
    for sequence in sequences:
        occurrences: Counter[Hashable] = Counter()
        previous: _Node | None = None
        for item in sequence:
            base = ident(item)
            node = (base, occurrences[base])
            occurrences[base] += 1
            items.setdefault(node, item)
            if previous is not None and node not in successors.setdefault(previous, set()):
                successors[previous].add(node)
                waiting[node] += 1
            previous = node
    return items, successors, waiting


def _job_status(shards: Sequence[EvaluationResults], mode: SubagentAggregation) -> tuple[JobStatus, str | None]:
    """Failed if a shard failed on its own account, else interrupted if a shard was, else completed.

    A shard's "every root failed" or "no trajectories" verdict is only about that shard, so it is
    left for the merged summary to decide again.
    """
    failed = [s for s in shards if s.summary.job_status == JobStatus.FAILED and not _verdict_of_summary(s, mode)]
    if failed:
        return JobStatus.FAILED, failed[0].summary.failure_reason
    interrupted = [s for s in shards if s.summary.job_status == JobStatus.INTERRUPTED]
    if interrupted:
        return JobStatus.INTERRUPTED, interrupted[0].summary.failure_reason
    return JobStatus.COMPLETED, None


def _verdict_of_summary(shard: EvaluationResults, mode: SubagentAggregation) -> bool:
    again = summarize(shard.nodes, _accounts(shard.inputs), mode, job_status=JobStatus.COMPLETED, failure_reason=None,
                      judge_counts={})
    return again.job_status == JobStatus.FAILED and again.failure_reason == shard.summary.failure_reason


def _judge_counts(shards: Sequence[EvaluationResults]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for shard in shards:
        for name, value in shard.summary.judge.items():
            totals[name] = totals.get(name, 0) + value
    return totals


def _accounts(records: Iterable[InputRecord]) -> list[InputAccount]:
    return [InputAccount(r.path, r.location, InputStatus(r.status), r.code, r.message) for r in records]
