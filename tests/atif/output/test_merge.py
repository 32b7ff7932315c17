from __future__ import annotations

import asyncio
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.atif.scripted import judge_rule, trajectory, write
from tests.conftest import EXAMPLES
from tracegrade.atif import EvaluationResults, merge_results, parse_parameters, write_artifacts
from tracegrade.atif._job import JudgeTarget, run_atif_job
from tracegrade.atif._run import JobContext
from tracegrade.atif.reading import InputAccount
from tracegrade.atif.reading._records import InputStatus
from tracegrade.atif.scoring._assemble import summarize
from tracegrade.atif.scoring._maths import SubagentAggregation
from tracegrade.errors import ConfigError
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.runs import JobStatus, Shard

ROOTS = ("alpha", "beta", "gamma", "delta")
IGNORED = {"judge"}  # summed over shards: they do not share criteria derivations, so they may ask more


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvaluationResults, list[EvaluationResults]]:
    """One unsharded run and its three shards over the examples plus self-written roots with file subagents."""
    corpus = tmp_path_factory.mktemp("inputs")
    shutil.copytree(EXAMPLES / "atif", corpus / "examples")
    for name in ROOTS:
        helper = [{"trajectory_path": f"helpers/{name}.json"}]
        write(corpus / "team" / f"{name}.json", trajectory(f"Task {name}", "Delegating.", "Done.", refs={2: helper}))
        write(corpus / "team" / "helpers" / f"{name}.json", trajectory(f"Help with {name}", "Helped."))
    for folder in ("case", "case-two"):  # "case-two/" sorts first as a string, "case/" first as a path
        write(corpus / "pair" / folder / "trajectory.json", trajectory(f"Task {folder}", "Answered."))
    options, criteria = parse_parameters(
        {
            "trajectory_path": str(corpus),
            "subagent_aggregation": "hierarchical",
            "partial_result_policy": "skip_failed_trajectory",
        }
    )

    async def score(shard: Shard | None, judge: ScriptedJudgeServer) -> EvaluationResults:
        target = JudgeTarget(url=judge.base_url, model="scripted-judge")
        results, _ = await run_atif_job(
            [corpus], options, criteria, target, JobContext("job-m", shard=shard), out_dir=None, cache_path=None
        )
        return results

    with ScriptedJudgeServer(judge_rule()) as judge:  # one endpoint, as its provenance records
        whole = asyncio.run(score(None, judge))
        return whole, [asyncio.run(score(Shard(i, 3), judge)) for i in range(3)]


def assert_same_run(merged: EvaluationResults, whole: EvaluationResults) -> None:
    assert merged.summary.model_dump(exclude=IGNORED) == whole.summary.model_dump(exclude=IGNORED)
    assert [n.node_id for n in merged.nodes] == [n.node_id for n in whole.nodes]
    assert merged.nodes == whole.nodes  # every node and step record, field by field
    assert merged.inputs == whole.inputs
    assert merged.parameters == whole.parameters and merged.provenance == whole.provenance
    assert merged.job_id == whole.job_id and merged.shard is None


def test_merged_shards_equal_the_unsharded_run(
    runs: tuple[EvaluationResults, list[EvaluationResults]], tmp_path: Path
) -> None:
    whole, shards = runs
    assert all(s.summary.counts["roots"] >= 1 for s in shards)  # every shard did real work
    assert whole.summary.counts["nodes"] > whole.summary.counts["roots"]  # subagents are in play

    merged = merge_results(random.Random(7).sample(shards, k=3))

    assert_same_run(merged, whole)
    assert merged.summary.judge["requests"] >= whole.summary.judge["requests"]
    written, expected = write_artifacts(merged, tmp_path / "m"), write_artifacts(whole, tmp_path / "w")
    assert pq.read_table(written["steps.parquet"]).equals(pq.read_table(expected["steps.parquet"]))


def test_shards_judged_by_several_endpoints_merge_naming_each(
    runs: tuple[EvaluationResults, list[EvaluationResults]]
) -> None:
    _, shards = runs
    moved = [edit(s, provenance={**s.provenance, "judge": {**s.provenance["judge"], "endpoint": f"http://h{i}:80/v1"}})
             for i, s in enumerate(shards)]
    merged = merge_results(moved)
    assert merged.provenance["judge"]["endpoint"] == "http://h0:80/v1, http://h1:80/v1, http://h2:80/v1"
    assert merge_results(shards).provenance == shards[0].provenance


def split(whole: EvaluationResults, assign: Callable[[str], int], count: int) -> list[EvaluationResults]:
    """Shards of a finished run by an arbitrary root assignment, built the way the scorer builds them."""
    mode = SubagentAggregation(whole.summary.subagent_aggregation)
    everywhere = {n.source_path for n in whole.nodes}
    shards = []
    for index in range(count):
        nodes = [n for n in whole.nodes if assign(n.root_id) == index]
        mine = {n.source_path for n in nodes}
        inputs = [r for r in whole.inputs if r.path in mine or (index == 0 and r.path not in everywhere)]
        accounts = [InputAccount(r.path, r.location, InputStatus(r.status), r.code, r.message) for r in inputs]
        summary = summarize(
            nodes, accounts, mode, job_status=JobStatus.COMPLETED, failure_reason=None,
            judge_counts=whole.summary.judge, shard=True,
        )
        shards.append(
            whole.model_copy(
                update={
                    "shard": f"{index}/{count}",
                    "nodes": nodes,
                    "inputs": inputs,
                    "summary": summary,
                    "parameters": whole.parameters.model_copy(update={"atif_complete": summary.atif_complete}),
                }
            )
        )
    return shards


def test_roots_come_back_in_path_order_not_string_order(
    runs: tuple[EvaluationResults, list[EvaluationResults]],
) -> None:
    whole, _ = runs
    roots = [n.node_id for n in whole.nodes if n.depth == 0]
    # "case/" sorts before "case-two/" part by part
    assert roots.index("pair/case/trajectory.json") < roots.index("pair/case-two/trajectory.json")
    shards = split(whole, lambda root: 0 if "case-two" in root else 1, 2)
    assert_same_run(merge_results(shards[::-1]), whole)


def test_a_shard_without_roots_does_not_fail_the_merge(runs: tuple[EvaluationResults, list[EvaluationResults]]) -> None:
    whole, _ = runs
    shards = split(whole, lambda root: 0, 2)
    # an empty shard completes with zero roots (it is not a failure) and merges cleanly
    assert shards[1].summary.job_status == "completed" and shards[1].summary.counts["roots"] == 0
    merged = merge_results(shards)
    assert merged.summary.job_status == "completed"
    assert_same_run(merged, whole)


def test_a_shard_that_failed_fails_the_merge(runs: tuple[EvaluationResults, list[EvaluationResults]]) -> None:
    _, shards = runs
    failed = shards[1].summary.model_copy(update={"job_status": "failed", "failure_reason": "fail_fast: node x"})
    merged = merge_results([shards[0], shards[1].model_copy(update={"summary": failed}), shards[2]])
    assert merged.summary.job_status == "failed" and merged.summary.failure_reason == "fail_fast: node x"
    assert merged.parameters.atif_complete is False


def edit(result: EvaluationResults, **changes: object) -> EvaluationResults:
    return result.model_copy(update=changes)


def edit_parameters(result: EvaluationResults, **changes: object) -> EvaluationResults:
    return edit(result, parameters=result.parameters.model_copy(update=changes))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda s: [s[0], s[1]], "missing shard(s) 2/3"),
        (lambda s: [s[0], s[1], s[2], s[1]], "shard 1/3 is given twice"),
        (lambda s: [s[0], s[1], edit(s[2], shard=None)], "not a shard"),
        (lambda s: [s[0], s[1], edit(s[2], shard="2/4")], "different splits"),
        (lambda s: [s[0], s[1], edit(s[2], job_id="other")], "different jobs"),
        (
            lambda s: [s[0], s[1], edit_parameters(s[2], failure_threshold=0.2)],
            "other parameters (failure_threshold)",
        ),
        (
            lambda s: [s[0], s[1], edit(s[2], provenance={**s[2].provenance, "prompt_version": "v0"})],
            "another judge provenance (prompt_version)",
        ),
        (lambda s: [s[0], s[1], edit(s[2], nodes=s[2].nodes + s[1].nodes[:1])], "more than one shard"),
        (lambda s: [edit_parameters(x, num_examples=2) for x in s], "num_examples"),
        (lambda s: [], "give the results"),
    ],
)
def test_merges_that_cannot_equal_one_run_are_refused(
    runs: tuple[EvaluationResults, list[EvaluationResults]],
    make: Callable[[list[EvaluationResults]], list[EvaluationResults]],
    message: str,
) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        merge_results(make(runs[1]))
