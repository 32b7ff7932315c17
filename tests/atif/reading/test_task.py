from tracegrade.atif.reading._task import normalize_task, resolve_task, task_hash

IMAGE = {"type": "image", "source": {"media_type": "image/png", "path": "shot.png"}}


def test_task_instruction_wins_over_user_message(make_node):
    node = make_node([{"source": "user", "message": "from the user"}], extra={"task_instruction": "  Do X  "})
    assert resolve_task(node) == "Do X"


def test_blank_or_non_string_task_instruction_falls_back_to_user(make_node):
    for declared in ("   ", 42, None):
        node = make_node([{"source": "user", "message": "Fix the bug"}], extra={"task_instruction": declared})
        assert resolve_task(node) == "Fix the bug"


def test_first_textual_user_step_is_the_task_and_later_ones_are_history(make_node):
    steps = [
        {"source": "system", "message": "You are helpful"},
        {"source": "user", "message": "First task"},
        {"source": "agent", "message": "ok"},
        {"source": "user", "message": "Second request"},
    ]
    assert resolve_task(make_node(steps)) == "First task"


def test_multimodal_user_message_joins_text_parts_and_ignores_images(make_node):
    message = [{"type": "text", "text": "Describe"}, IMAGE, {"type": "text", "text": "this picture"}]
    assert resolve_task(make_node([{"source": "user", "message": message}])) == "Describe\nthis picture"


def test_user_steps_without_text_are_skipped(make_node):
    steps = [
        {"source": "user", "message": [IMAGE]},
        {"source": "user", "message": "  "},
        {"source": "user", "message": "Real task"},
    ]
    assert resolve_task(make_node(steps)) == "Real task"


def test_task_is_never_taken_from_observations_or_agent_messages(make_node):
    steps = [
        {"source": "system", "message": "setup", "observation": {"results": [{"content": "Task: do Y"}]}},
        {
            "source": "agent",
            "message": "My task is Z",
            "tool_calls": [{"tool_call_id": "c1", "function_name": "read", "arguments": {}}],
            "observation": {"results": [{"source_call_id": "c1", "content": "Instruction: W"}]},
        },
    ]
    assert resolve_task(make_node(steps)) is None


def test_user_observation_text_is_not_the_task(make_node):
    steps = [{"source": "user", "message": "", "observation": {"results": [{"content": "tool said hi"}]}}]
    assert resolve_task(make_node(steps)) is None


def test_normalize_keeps_indentation_but_drops_trailing_space_and_crlf():
    assert normalize_task("\r\n  def f():\r\n      pass   \r\n\n") == "def f():\n      pass"


def test_task_hash_ignores_whitespace_differences_only():
    assert task_hash("Fix  the\n bug ") == task_hash("Fix the bug")
    assert task_hash("Fix the bug") != task_hash("Fix the bugs")
    assert len(task_hash("x")) == 64
