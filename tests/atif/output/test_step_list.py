"""The report's step list built in Python is the text the former Jinja2 macros rendered, byte for byte."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracegrade.atif.asking._content import ObservationContent, StepContent, ToolCallContent
from tracegrade.atif.output._step_list import KeptSections, node_section
from tracegrade.atif.scoring._records import CategorizationStatus, NodeResult, NodeStatusCode, StepResult, StepStatus
from tracegrade.atif.scoring._repeat_records import StepRepeats

from .former_step_list import former_section

_CHARS = st.sampled_from([*"ab z<>&\"'\n\t—·…é0{}:\\", "\u2028", "\x00"])
_SHORT = st.text(_CHARS, max_size=12)
_TEXT = st.one_of(st.none(), st.just(""), _SHORT, st.text(_CHARS, min_size=390, max_size=620))
_SCORE = st.one_of(st.none(), st.sampled_from([0.0, 1.0, 0.5, 0.49999, 1 / 3]),
                   st.floats(0, 1, allow_nan=False))


def _arguments() -> st.SearchStrategy[str]:
    value = st.one_of(_SHORT, st.text(_CHARS, max_size=700), st.integers(-9, 10**6), st.none(),
                      st.lists(_SHORT, max_size=2))
    objects = st.dictionaries(_SHORT, value, max_size=3).map(lambda d: orjson.dumps(d).decode())
    indented = st.dictionaries(_SHORT, value, max_size=3).map(
        lambda d: orjson.dumps(d, option=orjson.OPT_INDENT_2).decode())
    return st.one_of(objects, indented, _SHORT, st.just('{"cmd": "a\\u000ab"}'), st.just('{"cut": "a\\nb'))


_CALLS = st.builds(ToolCallContent, function_name=_SHORT, tool_call_id=st.one_of(st.none(), _SHORT),
                   arguments=_arguments())
_OBSERVATIONS = st.builds(ObservationContent, source_call_id=st.one_of(st.none(), _SHORT), content=_TEXT,
                          subagent_refs=st.lists(_SHORT, max_size=2))
_CONTENT = st.one_of(st.none(), st.builds(
    StepContent, message=_TEXT, reasoning=_TEXT, tool_calls=st.lists(_CALLS, max_size=2),
    observations=st.lists(_OBSERVATIONS, max_size=2), copied_context=st.booleans(), truncated=st.booleans(),
    omitted_items=st.sampled_from([0, 0, 3])))
_REPEATS = st.one_of(st.none(), st.builds(
    StepRepeats, scores=st.lists(st.floats(0, 1), min_size=1, max_size=3), seeds=st.just([1]),
    std=st.floats(0, 1), min=st.just(0.0), max=st.just(1.0), unstable=st.booleans()))


@st.composite
def _steps(draw: st.DrawFn, index: int) -> StepResult:
    return StepResult(
        index=index, segment=draw(st.sampled_from([0, 0, 1, 2])), step_id=draw(st.integers(0, 99)),
        source=draw(st.sampled_from(["agent", "user", "system", "<x>"])), status=draw(st.sampled_from(StepStatus)),
        score=draw(_SCORE), criterion_scores=draw(st.one_of(st.none(), st.dictionaries(_SHORT, st.floats(0, 1),
                                                                                       max_size=3))),
        rationale=draw(_TEXT), omitted_history=draw(st.sampled_from([None, 0, 1, 12345])),
        error_code=draw(st.one_of(st.none(), _SHORT)), failure_candidate=draw(st.booleans()),
        category=draw(st.one_of(st.none(), st.sampled_from(["context_loss", "none", "uncategorized"]), _SHORT)),
        categorization_status=draw(st.sampled_from(CategorizationStatus)),
        categorization_rationale=draw(_TEXT), categorization_error_code=draw(st.one_of(st.none(), _SHORT)),
        content=draw(_CONTENT), repeats=draw(_REPEATS),
    )


_CRITERION = st.fixed_dictionaries({}, optional={"name": _SHORT, "weight": st.sampled_from([1, 0.5, 2.0, "<w>"]),
                                                 "description": _TEXT})
_CRITERIA = st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "criteria": st.one_of(st.lists(_CRITERION, max_size=3), st.just("not a list")),
    "scoring_mode": st.one_of(st.none(), _SHORT), "rubric_name": st.one_of(st.none(), _SHORT)}))


@st.composite
def _nodes(draw: st.DrawFn) -> tuple[NodeResult, dict[int, str]]:
    steps = [draw(_steps(i + 1)) for i in range(draw(st.integers(0, 4)))]
    node = NodeResult(
        node_id=draw(st.sampled_from(["a.json", "a.json::sub<1>.json", "x&y \"q\" 'z'"])), parent_id=None,
        root_id="a.json", source_path=draw(st.sampled_from(["a.json", "dir/<b>&.json"])),
        location=draw(st.sampled_from(["", "#/steps/2", "<l>"])), trajectory_id=None, session_id=None,
        agent=draw(st.one_of(st.none(), _SHORT)), depth=draw(st.integers(0, 3)),
        status=draw(st.sampled_from(NodeStatusCode)), error_code=draw(st.one_of(st.none(), st.just(""), _SHORT)),
        message=draw(_TEXT), complete=draw(st.booleans()), own_score=draw(_SCORE), aggregate=draw(_SCORE),
        passed=draw(st.one_of(st.none(), st.booleans())), step_count=draw(st.integers(0, 4)), subtree_step_count=0,
        total_steps=len(steps), criteria=draw(_CRITERIA), steps=steps,
    )
    marked = draw(st.lists(st.integers(1, 4), max_size=2))
    return node, {i: f"decisive step (binary_search): <agent>: reason {i} & more" for i in marked}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.data_too_large])
@given(_nodes())
def test_every_node_renders_as_the_former_macros_did(drawn: tuple[NodeResult, dict[int, str]]) -> None:
    node, decisive = drawn
    assert node_section(node) == former_section(node)
    assert node_section(node, decisive) == former_section(node, decisive)


def _node(steps: list[StepResult], **fields: Any) -> NodeResult:
    values: dict[str, Any] = {
        "node_id": "r.json", "parent_id": None, "root_id": "r.json", "source_path": "r.json", "location": "",
        "trajectory_id": None, "session_id": None, "agent": "bench", "depth": 0, "status": NodeStatusCode.SCORED,
        "complete": True, "own_score": 0.5, "aggregate": 0.5, "passed": True, "step_count": len(steps),
        "subtree_step_count": len(steps), "total_steps": len(steps), "steps": steps, **fields,
    }
    return NodeResult(**values)


def test_each_kind_of_step_renders_as_before() -> None:
    """Every status and categorisation, long and escaped text, copied context, continuations, repeats."""
    hostile = "<script>alert('x' & \"y\")</script>"
    long = "line\n" * 200
    steps = [
        StepResult(index=1, segment=0, step_id=1, source="user", status=StepStatus.SCORED, score=0.9,
                   criterion_scores={"b": 0.9, "a": 1.0}, rationale=hostile, omitted_history=0,
                   content=StepContent(message=hostile)),
        StepResult(index=2, segment=1, step_id=1, source="agent", status=StepStatus.SCORED, score=0.1,
                   criterion_scores={"a": 0.1}, rationale=long, omitted_history=4, failure_candidate=True,
                   category="context_loss", categorization_status=CategorizationStatus.CATEGORIZED,
                   categorization_rationale=long, content=StepContent(
                       reasoning=long, truncated=True, omitted_items=2,
                       tool_calls=[ToolCallContent(function_name="bash", tool_call_id="c1",
                                                   arguments=orjson.dumps({"cmd": "cat <<EOF\na\nEOF"}).decode())],
                       observations=[ObservationContent(source_call_id="c1", content=long, subagent_refs=["s.json"]),
                                     ObservationContent(content=""), ObservationContent()])),
        StepResult(index=3, segment=0, step_id=3, source="agent", status=StepStatus.FAILED,
                   error_code="http_status_429", failure_candidate=True,
                   categorization_status=CategorizationStatus.JUDGE_ERROR, categorization_error_code="timeout"),
        StepResult(index=4, segment=0, step_id=4, source="agent", status=StepStatus.COPIED_CONTEXT,
                   content=StepContent(message="replayed", copied_context=True)),
        StepResult(index=5, segment=0, step_id=5, source="agent", status=StepStatus.SCORED, score=0.4,
                   failure_candidate=True, categorization_status=CategorizationStatus.ABSTAINED, category="none",
                   content=StepContent(message="", copied_context=True),
                   repeats=StepRepeats(scores=[0.2, 0.6], seeds=[1, 2], std=0.28, min=0.2, max=0.6, unstable=True)),
        StepResult(index=6, segment=0, step_id=6, source="system", status=StepStatus.NOT_RUN, content=StepContent()),
    ]
    criteria = {"scoring_mode": "benchmark", "rubric_name": "terminal-bench",
                "criteria": [{"name": "<c>", "weight": 1.0, "description": hostile}, {"weight": 2}]}
    for node in (_node(steps, criteria=criteria, message=hostile, error_code="judge_error", agent=None),
                 _node([], status=NodeStatusCode.INVALID, passed=None, own_score=None, aggregate=None)):
        assert node_section(node) == former_section(node)
        assert node_section(node, {2: hostile}) == former_section(node, {2: hostile})


def test_kept_sections_come_back_in_root_order_whatever_order_roots_finished_in() -> None:
    roots = [[_node([], node_id=f"r{i}.json", root_id=f"r{i}.json", message=f"<m{i}>")] for i in range(4)]
    kept = KeptSections()
    for index in (2, 0, 3, 1):
        kept.add(index, roots[index])
    assert len(kept) == 4
    assert list(kept.texts()) == [node_section(root[0]) for root in roots]
