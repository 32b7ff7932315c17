"""Replay: rescore the results saved in a report against the current gold, running nothing."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from tracegrade.errors import ConfigError
from tracegrade.suites.checking._judge import JudgeAsker
from tracegrade.suites.checking._scoring import SuiteScorer
from tracegrade.suites.reading._comparisons import ScorerRegistry
from tracegrade.suites.reading._dataset import Dataset, SuiteSpec
from tracegrade.suites.reporting._params import SuiteRunParameters
from tracegrade.suites.reporting._report import DatasetIdentity, ReplayedFrom, SuiteReport, SuiteSection, suite_section
from tracegrade.suites.running._engine import observation_of, scorer_revisions

__all__ = ["replay_report"]


def _refuse(message: str) -> ConfigError:
    return ConfigError(f"cannot replay: {message}", code="replay_incompatible")


def _check_suite(saved: SuiteSection, suite: SuiteSpec, scorer: SuiteScorer) -> None:
    if {k: getattr(saved, k) for k in suite.targets} != suite.targets:
        raise _refuse(f"suite {suite.name!r}: targets changed")
    order = list(dict.fromkeys(a.id for a in saved.attempts))
    if order != list(suite.columns.ids):
        raise _refuse(f"suite {suite.name!r}: cases or their order changed")
    for attempt in saved.attempts:
        if attempt.input_sha256 != scorer.cases[attempt.id].input_sha256:
            raise _refuse(f"suite {suite.name!r}: the input of a case changed")
        if attempt.details is None:
            raise _refuse("the report holds no saved results (it was written with --no-details)")


async def replay_report(saved: SuiteReport, dataset: Dataset, *, registry: ScorerRegistry | None = None,
                        judge: JudgeAsker | None = None, judge_model: str | None = None) -> SuiteReport:
    """A new report with every saved result rescored against ``dataset``'s current gold.

    Original timing and usage are kept. Refused (ConfigError) when the dataset name, suites, targets,
    case order, inputs or the run's configuration differ from the saved report.
    """
    registry = registry or ScorerRegistry()
    if saved.dataset.name != dataset.name:
        raise _refuse("the report is of another dataset")
    if [s.suite for s in saved.suites] != [s.name for s in dataset.suites]:
        raise _refuse("suites changed")
    clock, started = time.perf_counter(), datetime.now(UTC)
    sections = [await _replay_suite(section, suite, saved.parameters, registry, judge, judge_model)
                for section, suite in zip(saved.suites, dataset.suites, strict=True)]
    return SuiteReport(mode="replay", dataset=DatasetIdentity.of(dataset), parameters=saved.parameters,
                       target=saved.target, replayed=ReplayedFrom(started_at=saved.started_at, mode=saved.mode),
                       started_at=started.isoformat(), elapsed_seconds=time.perf_counter() - clock, suites=sections)


async def _replay_suite(section: SuiteSection, suite: SuiteSpec, params: SuiteRunParameters,
                        registry: ScorerRegistry, judge: JudgeAsker | None, judge_model: str | None) -> SuiteSection:
    if section.repeat != params.repeat or section.configuration_revision != params.configuration_revision:
        raise _refuse(f"suite {suite.name!r}: configuration changed")
    scorer = SuiteScorer(suite, registry, judge)
    _check_suite(section, suite, scorer)
    attempts = [await scorer.cases[a.id].score(observation_of(a), a.repetition, details=True)
                for a in section.attempts]
    return suite_section(suite, attempts, params, scorer_revisions(suite, registry, judge_model))
