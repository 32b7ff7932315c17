from __future__ import annotations

import importlib.util
import math
from typing import Any

import pytest

from tests.conftest import unavailable
from tracegrade.judge.local._plain import (
    PLAIN_CHAT_FORMAT,
    _Recorder,
    _with_logprobs,
    plain_prompt,
    register_plain_format,
)


def needs_llama_cpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        unavailable("llama_cpp is not installed (pip install 'tracegrade[local-judge]')")


def test_the_plain_format_joins_the_messages_text() -> None:
    assert plain_prompt([{"role": "system", "content": "a"}, {"role": "user", "content": "b"}]) == "a\n\nb"


def test_content_that_is_not_text_is_left_out_of_the_plain_prompt() -> None:
    messages = [{"role": "user", "content": [{"type": "image_url"}]}, {"role": "user", "content": "b"}, {"role": "x"}]
    assert plain_prompt(messages) == "b"


class Vocabulary:
    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join("abcd"[t] for t in tokens).encode()


def test_the_recorder_gives_each_answer_token_its_log_probability_and_top_alternatives() -> None:
    import numpy as np

    recorder = _Recorder(Vocabulary(), 2)
    first = np.log(np.array([0.1, 0.6, 0.2, 0.1], dtype=np.float32))
    second = np.log(np.array([0.25, 0.25, 0.25, 0.25], dtype=np.float32))
    assert recorder(np.array([0, 0]), first) is first  # logits pass through unchanged
    recorder(np.array([0, 0, 2]), second)  # the sampler chose token 2 ("c") at the first step
    recorder(np.array([0, 0, 2, 3]), second)  # then "d"; this last step (end of answer) is not recorded
    (c, d) = recorder.entries
    assert c["token"] == "c" and c["logprob"] == pytest.approx(math.log(0.2), abs=1e-6)
    assert [(t["token"], round(math.exp(t["logprob"]), 6)) for t in c["top_logprobs"]] == [("b", 0.6), ("c", 0.2)]
    assert d["token"] == "d" and d["logprob"] == pytest.approx(math.log(0.25), abs=1e-6)


class Sampler:
    """Stands in for llama.cpp's completion: runs the logits processors over two steps, answers "cd"."""

    def __init__(self) -> None:
        self.processors: list[Any] = []

    def __call__(self, *, llama: Any, logits_processor: Any = None, stream: bool = False, **kwargs: Any) -> Any:
        import numpy as np

        self.processors = list(logits_processor or [])
        logits = np.log(np.array([0.1, 0.1, 0.7, 0.1]))
        for inputs in ([0], [0, 2], [0, 2, 3]):
            for processor in self.processors:
                processor(np.array(inputs), logits)
        return {"choices": [{"message": {"content": "cd"}, "logprobs": None}]}


def test_an_answer_asked_with_logprobs_carries_the_recorded_ones() -> None:
    needs_llama_cpp()
    sampler = Sampler()
    response = _with_logprobs(sampler)(llama=Vocabulary(), logprobs=True, top_logprobs=1, messages=[])
    entries = response["choices"][0]["logprobs"]["content"]
    assert [entry["token"] for entry in entries] == ["c", "d"]
    assert entries[0]["top_logprobs"][0]["token"] == "c"


def test_an_answer_asked_without_logprobs_runs_no_recorder() -> None:
    needs_llama_cpp()
    sampler = Sampler()
    response = _with_logprobs(sampler)(llama=Vocabulary(), logprobs=False, messages=[])
    assert sampler.processors == [] and response["choices"][0]["logprobs"] is None


def test_the_plain_format_is_registered_with_llama_cpp() -> None:
    needs_llama_cpp()
    from llama_cpp.llama_chat_format import LlamaChatCompletionHandlerRegistry

    register_plain_format()
    register_plain_format()  # a second registration replaces the first
    assert callable(LlamaChatCompletionHandlerRegistry().get_chat_completion_handler_by_name(PLAIN_CHAT_FORMAT))
