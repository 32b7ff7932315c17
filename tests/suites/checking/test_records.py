from __future__ import annotations

import orjson
import pytest
from pydantic import TypeAdapter, ValidationError

from tracegrade.suites import AttemptRecord, CheckResult
from tracegrade.suites.checking._records import AttemptRequest, Invocation, MetricObservation, Record

RECORD = AttemptRecord("c1", 2, "failed", False, (CheckResult("v", "error", "owner_failed"),), "i" * 64, "e" * 64,
                       error_code="provider_down", invocations=(Invocation("f", "s", "/flows/f/steps/s", "failed"),),
                       metrics={"m": MetricObservation("error", gold="x")})


def test_the_request_document_names_every_field() -> None:
    request = AttemptRequest("s", "c1", 1, "wf", None, None, {"q": 1}, {"channel": "email"})
    assert request.to_json() == {"suite": "s", "case_id": "c1", "repetition": 1, "target_workflow": "wf",
                                 "target_flow": None, "target_step": None, "payload": {"q": 1},
                                 "metadata": {"channel": "email"}}


def test_an_attempt_record_reads_back_from_its_json() -> None:
    saved = orjson.loads(orjson.dumps(RECORD))
    assert list(saved) == ["id", "repetition", "status", "passed", "checks", "input_sha256", "expectations_sha256",
                           "error_code", "elapsed_seconds", "usage", "invocations", "metrics", "details"]
    assert TypeAdapter(AttemptRecord).validate_python(saved) == RECORD


@pytest.mark.parametrize("change", [{"status": "done"}, {"extra": 1}, {"checks": [{"name": "v", "outcome": "ok"}]}])
def test_an_attempt_record_refuses_unknown_keys_and_values(change: dict[str, object]) -> None:
    saved = {**orjson.loads(orjson.dumps(RECORD)), **change}
    with pytest.raises(ValidationError):
        TypeAdapter(AttemptRecord).validate_python(saved)


def test_report_records_are_frozen_and_closed() -> None:
    class Counts(Record):
        total: int

    counts = Counts(total=1)
    with pytest.raises(ValidationError):
        counts.total = 2  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs"):
        Counts.model_validate({"total": 1, "passed": 1})


def test_a_record_made_at_once_equals_the_constructed_one_and_writes_the_same_bytes() -> None:
    import dataclasses

    from tracegrade.suites.checking._records import attempt_record

    fields = [getattr(RECORD, f.name) for f in dataclasses.fields(AttemptRecord)]
    made = attempt_record(*fields)
    assert type(made) is AttemptRecord and made == RECORD and hash(made.checks) == hash(RECORD.checks)
    assert orjson.dumps(made, option=orjson.OPT_INDENT_2) == orjson.dumps(RECORD, option=orjson.OPT_INDENT_2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.passed = True  # type: ignore[misc]
