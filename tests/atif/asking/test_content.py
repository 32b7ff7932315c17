from __future__ import annotations

from evalhub.models.atif import ContentPart, ImageSource, Observation, ObservationResult, Step, SubagentTrajectoryRef

from tracegrade.atif.asking._content import MAX_ITEMS, PART_CHARS, step_content


def test_step_content_is_bounded_and_flags_the_cut() -> None:
    step = Step(
        step_id=1,
        source="agent",
        message="m" * (PART_CHARS + 10),
        tool_calls=[{"tool_call_id": "c", "function_name": "f", "arguments": {"n": 2**70}}],
    )
    content = step_content(step)
    assert content.truncated and content.message is not None
    assert content.message.startswith("m" * PART_CHARS) and f"{PART_CHARS + 10:,} characters" in content.message
    assert "1180591620717411303424" in content.tool_calls[0].arguments
    assert not step_content(Step(step_id=2, source="user", message="hi")).truncated


def test_calls_and_results_beyond_the_limit_are_counted_not_kept() -> None:
    calls = [{"tool_call_id": f"c{i}", "function_name": "f", "arguments": {}} for i in range(MAX_ITEMS + 5)]
    results = [ObservationResult(content=f"r{i}") for i in range(MAX_ITEMS + 2)]
    content = step_content(Step(step_id=1, source="agent", message="m", tool_calls=calls,
                                observation=Observation(results=results)))
    assert len(content.tool_calls) == len(content.observations) == MAX_ITEMS
    assert content.tool_calls[-1].tool_call_id == f"c{MAX_ITEMS - 1}" and content.observations[0].content == "r0"
    assert content.truncated and content.omitted_items == 7


def test_parts_become_text_with_media_markers_joined_by_blank_lines() -> None:
    parts = [ContentPart(type="text", text="look"),
             ContentPart(type="image", source=ImageSource(media_type="image/png", path="a.png"))]
    content = step_content(Step(step_id=1, source="agent", message=parts))
    assert content.message == "look\n\n[image omitted: a.png]" and not content.truncated


def test_delegations_name_the_trajectory_by_path_else_by_id() -> None:
    refs = [SubagentTrajectoryRef(trajectory_id="t-1", trajectory_path="sub/a.json"),
            SubagentTrajectoryRef(trajectory_id="t-2")]
    observation = Observation(results=[ObservationResult(source_call_id="c1", subagent_trajectory_ref=refs)])
    (result,) = step_content(Step(step_id=1, source="agent", message="m", observation=observation)).observations
    assert (result.source_call_id, result.subagent_refs) == ("c1", ["sub/a.json", "t-2"])


def test_a_replayed_step_is_marked_as_copied_context() -> None:
    assert step_content(Step(step_id=1, source="user", message="hi", is_copied_context=True)).copied_context
    assert not step_content(Step(step_id=1, source="user", message="hi")).copied_context


def test_arguments_are_indented_sorted_json_even_beyond_64_bits() -> None:
    cases = (({"b": 1, "a": "x"}, '{\n  "a": "x",\n  "b": 1\n}'), ({"n": 2**70}, '{\n  "n": 1180591620717411303424\n}'))
    for arguments, shown in cases:
        step = Step(step_id=1, source="agent", message="m",
                    tool_calls=[{"tool_call_id": "c", "function_name": "f", "arguments": arguments}])
        assert step_content(step).tool_calls[0].arguments == shown
