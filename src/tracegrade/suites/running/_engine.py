"""Running a dataset: every attempt through the target with bounded concurrency, then the report."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracegrade.suites.checking._judge import JudgeAsker
from tracegrade.suites.checking._records import AttemptRecord, AttemptRequest, Observation
from tracegrade.suites.checking._scoring import CaseScorer, SuiteScorer
from tracegrade.suites.reading._comparisons import ScorerRegistry
from tracegrade.suites.reading._dataset import Dataset, SuiteSpec, sha256_json
from tracegrade.suites.reporting._params import SuiteRunParameters
from tracegrade.suites.reporting._report import DatasetIdentity, SuiteReport, suite_section
from tracegrade.suites.running._checkpoint import Checkpoint
from tracegrade.suites.running._runners import Target

__all__ = ["run_dataset", "run_key", "scorer_revisions"]

Advance = Callable[[int], None]


def scorer_revisions(suite: SuiteSpec, registry: ScorerRegistry, judge_model: str | None) -> dict[str, str]:
    """Revision of every comparison the suite uses (compare refuses when they differ)."""
    return registry.revisions(suite.columns.comparisons(), judge_model)


def run_key(dataset: Dataset, target: dict[str, Any], params: SuiteRunParameters) -> str:
    """Identity of a run for its checkpoint: dataset, suites, target and result-affecting parameters."""
    return sha256_json({"dataset": [dataset.name, dataset.revision], "target": target,
                        "suites": [s.fingerprint for s in dataset.suites], "repeat": params.repeat,
                        "variant": params.variant, "configuration_revision": params.configuration_revision})


def _plan(scorers: list[SuiteScorer], repeat: int) -> Iterator[tuple[CaseScorer, AttemptRequest]]:
    for scorer in scorers:
        suite = scorer.suite
        for case in scorer.cases.values():
            for repetition in range(1, repeat + 1):
                request = AttemptRequest(suite.name, case.id, repetition, suite.workflow, suite.flow, suite.step,
                                         case.input["payload"], case.input["metadata"])
                yield case, request


async def run_dataset(dataset: Dataset, target: Target, params: SuiteRunParameters, *,
                      registry: ScorerRegistry | None = None, judge: JudgeAsker | None = None,
                      judge_model: str | None = None, checkpoint: Path | None = None,
                      advance: Advance = lambda n: None) -> SuiteReport:
    """Run every attempt of every suite and build the report.

    All ``concurrency_limit`` slots stay busy until the work runs out. With ``checkpoint``, finished
    attempts are appended to it, and attempts already in it are scored again but not re-run.
    """
    registry = registry or ScorerRegistry()
    started, clock = datetime.now(UTC), time.perf_counter()
    scorers = [SuiteScorer(suite, registry, judge) for suite in dataset.suites]
    store = Checkpoint(checkpoint, run_key(dataset, target.describe(), params)) if checkpoint else None
    records: dict[tuple[str, str, int], AttemptRecord] = {}
    work = _plan(scorers, params.repeat)

    async def worker() -> None:
        for scorer, request in work:
            key = (request.suite, request.case_id, request.repetition)
            observation = store.done.get(key) if store else None
            if observation is None:
                observation = await target.attempt(request, params.timeout)
                if store:
                    store.append(*key, observation)
            records[key] = await scorer.score(observation, request.repetition, details=params.details)
            advance(1)

    try:
        await asyncio.gather(*(worker() for _ in range(params.concurrency_limit)))
    finally:
        await target.aclose()
        if store:
            store.close()
    suites = [suite_section(scorer.suite, _ordered(scorer, records, params.repeat), params,
                            scorer_revisions(scorer.suite, registry, judge_model)) for scorer in scorers]
    return SuiteReport(mode="run", dataset=DatasetIdentity.of(dataset), parameters=params, target=target.describe(),
                       started_at=started.isoformat(), elapsed_seconds=time.perf_counter() - clock, suites=suites)


def _ordered(scorer: SuiteScorer, records: dict[tuple[str, str, int], AttemptRecord],
             repeat: int) -> list[AttemptRecord]:
    return [records[(scorer.suite.name, case_id, r)] for case_id in scorer.cases for r in range(1, repeat + 1)]


def observation_of(record: AttemptRecord) -> Observation:
    """The observation behind a saved attempt (for replay): result, timing and usage as recorded."""
    result = (record.details or {}).get("result")
    return Observation(result if isinstance(result, dict) else None,
                       None if isinstance(result, dict) else record.error_code or "invalid_result",
                       record.elapsed_seconds, dict(record.usage) if record.usage is not None else None)
