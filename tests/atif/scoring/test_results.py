"""The ``evaluation_results.json`` document and its typed run parameters."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.atif.helpers import recorded_parameters
from tracegrade.atif import ScoringOptions
from tracegrade.atif.scoring import SubagentAggregation
from tracegrade.atif.scoring._results import EvaluationResults, RunParameters
from tracegrade.rubric import ScoringMode
from tracegrade.runs import dump_json

DATA = Path(__file__).parent / "data"
WRITTEN = ["single_verdict.evaluation_results.json", "three_verdicts.evaluation_results.json"]
"""Written by tracegrade before the parameters were typed (one and three verdicts per step)."""


@pytest.mark.parametrize("name", WRITTEN)
def test_files_written_before_read_back_and_write_the_same_bytes(name: str) -> None:
    written = (DATA / name).read_bytes()
    results = EvaluationResults.model_validate_json(written)
    assert dump_json(results.model_dump(mode="json")) == written


def test_parameters_read_back_are_typed_and_keep_every_value() -> None:
    one, three = (EvaluationResults.model_validate_json((DATA / name).read_bytes()).parameters for name in WRITTEN)
    assert isinstance(one, ScoringOptions) and one.subagent_aggregation is SubagentAggregation.FLAT
    assert one.scoring_mode is ScoringMode.AUTO and one.atif_criteria_source == "derived_by_judge"
    assert (one.judge_repeats, one.failure_threshold, one.judge_seed) == (1, 0.5, None)  # absent means one verdict
    assert (three.judge_repeats, three.failure_threshold, three.judge_seed) == (3, 0.8, 7)
    assert one.atif_complete is False and one.atif_judge == "scripted"


def test_judge_repeats_is_recorded_only_when_it_changes_the_results() -> None:
    single = recorded_parameters().model_dump(mode="json")
    assert "judge_repeats" not in single
    assert recorded_parameters(judge_repeats=3).model_dump(mode="json")["judge_repeats"] == 3


def test_the_parameters_are_the_options_then_the_criteria_then_what_the_run_was() -> None:
    names = list(recorded_parameters(judge_repeats=2).model_dump(mode="json"))
    options = [name for name in ScoringOptions.model_fields if name != "scored_frames"]  # as atif_scored_frames
    assert names[: len(options)] == options
    assert names[len(options):] == [
        "scoring_mode", "benchmark_name", "reference_registry_path", "reference_rubric", "custom_rubric_source",
        "atif_prompt_version", "atif_judge", "atif_scored_frames", "atif_criteria_source", "atif_copied_context",
        "atif_complete",
    ]


def test_a_parameter_no_run_records_is_refused() -> None:
    values = recorded_parameters().model_dump(mode="json")
    with pytest.raises(ValidationError, match="judge_api_key"):
        RunParameters.model_validate({**values, "judge_api_key": "sk-secret"})
    with pytest.raises(ValidationError, match="atif_copied_context"):
        RunParameters.model_validate({**values, "atif_copied_context": "sometimes"})


def test_input_records_share_their_fields_set_and_dump_as_validated_ones() -> None:
    from tracegrade.atif.reading._records import InputAccount, InputStatus
    from tracegrade.atif.scoring._results import InputRecord

    accounts = [InputAccount("/in/a.json", "", InputStatus.LOADED),
                InputAccount("/in/b.jsonl", "line 2", InputStatus.INVALID, "invalid_json", "b.jsonl:2: bad")]
    records = [InputRecord.of(a) for a in accounts]
    assert records[0].model_fields_set is records[1].model_fields_set
    for record, account in zip(records, accounts, strict=True):
        validated = InputRecord(path=account.path, location=account.location, status=account.status.value,
                                code=account.code, message=account.message)
        assert record == validated and record.model_dump_json() == validated.model_dump_json()
        assert record.model_fields_set == validated.model_fields_set
