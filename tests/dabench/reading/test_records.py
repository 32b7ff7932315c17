from __future__ import annotations

import pytest

from tracegrade.dabench.reading._records import Phase, Step, TaskInput, TaskRecord, TraceFormat


def step(**tokens: int | None) -> Step:
    return Step(1, "think", Phase.PLAN, False, True, **tokens)  # type: ignore[arg-type]


def test_tokens_add_input_and_output_and_are_unknown_only_when_both_are() -> None:
    assert step().tokens is None
    assert step(tokens_input=5).tokens == 5 and step(tokens_output=7).tokens == 7
    assert step(tokens_input=5, tokens_output=7, tokens_reasoning=3).tokens == 12  # reasoning is part of output


@pytest.mark.parametrize(
    ("fmt", "has_steps"),
    [(TraceFormat.REACT, True), (TraceFormat.RICH, True), (TraceFormat.FAILURE_PAYLOAD, False),
     (TraceFormat.MISSING, False)],
)
def test_only_traces_with_step_data_have_steps(fmt: TraceFormat, has_steps: bool) -> None:
    record = TaskRecord("run", "t1", fmt, None, (), None, None, None, None, None, None, TaskInput("t1"))
    assert record.has_steps is has_steps


def test_records_are_immutable() -> None:
    with pytest.raises(AttributeError):
        step().ok = False  # type: ignore[misc]
