from __future__ import annotations

from typing import Any

import jinja2

from tracegrade.judge.local._plain import PLAIN_CHAT_TEMPLATE


def render(messages: list[dict[str, Any]]) -> str:
    """The template as Jinja renders it (llama.cpp's own engine is checked against the real server in
    tests/judge/local/test_server.py)."""
    return jinja2.Environment().from_string(PLAIN_CHAT_TEMPLATE).render(messages=messages)


def test_the_plain_template_joins_the_messages_text_with_blank_lines() -> None:
    messages = [{"role": "system", "content": "a"}, {"role": "user", "content": "b\nc"},
                {"role": "assistant", "content": "d"}]
    assert render(messages) == "a\n\nb\nc\n\nd"


def test_the_plain_template_adds_no_turn_markers_and_no_generation_prompt() -> None:
    text = render([{"role": "user", "content": "Problem:\n"}])
    assert text == "Problem:\n"  # the prompt ends where the request's text ends: the model continues it


def test_content_that_is_not_text_is_left_out_of_the_plain_prompt() -> None:
    messages = [{"role": "user", "content": [{"type": "image_url"}]}, {"role": "user", "content": "b"}, {"role": "x"}]
    assert render(messages) == "b"
