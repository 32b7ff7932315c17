from __future__ import annotations

import hashlib

from tracegrade.atif.criteria._benchmark import BENCHMARK_RUBRIC_NOTE
from tracegrade.atif.criteria._sources import CriteriaFailure, CriteriaFailureCode, ResolvedCriteria
from tracegrade.rubric import Aggregation, Criterion, Rubric, ScoringMode

RUBRIC = Rubric(name="r", version="2", criteria=(Criterion(name="a", description="A", weight=2),),
                aggregation=Aggregation.MINIMUM)


def test_provenance_always_names_the_mode_rubric_criteria_and_their_hash() -> None:
    record = ResolvedCriteria(rubric=RUBRIC, mode=ScoringMode.AUTO, task="fix it", task_hash="t1").provenance()
    assert record == {
        "scoring_mode": "auto",
        "rubric_name": "r",
        "rubric_version": "2",
        "aggregation": "minimum",
        "criteria": [{"name": "a", "description": "A", "weight": 2.0}],
        "criteria_hash": RUBRIC.criteria_hash,
        "task_hash": "t1",
    }


def test_the_reference_answer_is_recorded_by_its_hash_only() -> None:
    resolved = ResolvedCriteria(rubric=RUBRIC, mode=ScoringMode.REFERENCE, reference_id="q7", reference_answer="42")
    record = resolved.provenance()
    assert record["reference_id"] == "q7" and "42" not in record.values()
    assert record["reference_answer_sha256"] == hashlib.sha256(b"42").hexdigest()


def test_only_benchmark_criteria_carry_the_benchmark_note() -> None:
    benchmark = ResolvedCriteria(rubric=RUBRIC, mode=ScoringMode.BENCHMARK, benchmark_name="terminal-bench")
    assert benchmark.provenance()["benchmark_rubric_note"] == BENCHMARK_RUBRIC_NOTE
    assert "benchmark_rubric_note" not in ResolvedCriteria(rubric=RUBRIC, mode=ScoringMode.CUSTOM).provenance()


def test_a_failure_records_its_code_and_the_task_hash_when_known() -> None:
    failure = CriteriaFailure(code=CriteriaFailureCode.TASK_UNRESOLVED, message="no task", mode=ScoringMode.AUTO)
    assert failure.provenance() == {"scoring_mode": "auto", "criteria_error": "task_unresolved"}
    known = CriteriaFailure(code="timeout", message="judge timed out", mode=ScoringMode.AUTO, task_hash="t1")
    assert known.provenance() == {"scoring_mode": "auto", "criteria_error": "timeout", "task_hash": "t1"}
