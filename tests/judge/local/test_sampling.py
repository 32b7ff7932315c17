"""Grammar-last greedy sampling gives llama-cpp-python's own answers, on the real model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import require_local_judge
from tracegrade.atif.localising._prompts import HALF_SCHEMA, STEP_SCHEMA
from tracegrade.judge.local._plain import PLAIN_CHAT_FORMAT, register_plain_format
from tracegrade.judge.local._runner import LocalJudge
from tracegrade.judge.local._sampling import GrammarLastGreedy, install_grammar_last_greedy
from tracegrade.judge.local._server import extra_buffers

pytestmark = [pytest.mark.local_judge]

SCORE_SCHEMA = {"type": "object", "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
                "required": ["score"], "additionalProperties": False}
ASKED = [
    ("An agent searched the web for the population of Paris and reported 2 million for 1800.\n\nIs this step "
     "the decisive error? Reply with one JSON object with keys decisive and reason.", STEP_SCHEMA),
    ("First half: the agent read the file. Second half: the agent divided by zero.\nWhich half holds the "
     "decisive error? Reply with JSON with keys half and reason.", HALF_SCHEMA),
    ("Score the step from 1 to 5 as JSON {\"score\": n}. The step: it ran the tests and all passed.", SCORE_SCHEMA),
]


@pytest.fixture(scope="module")
def llama() -> Iterator[Any]:
    require_local_judge()
    from llama_cpp import Llama

    register_plain_format()
    judge = LocalJudge()
    with extra_buffers(judge.extra_buffers):  # as the server loads it (AMX kernels crash on some VMs)
        llm = Llama(model_path=str(judge._assemble()), n_ctx=1024, n_threads=2, verbose=False, logits_all=False,
                    chat_format=PLAIN_CHAT_FORMAT)
    yield llm
    llm.close()


def answers(llm: Any, temperature: float = 0.0) -> list[tuple[str, str, Any]]:
    """Each question's answer text, finish reason and log-probabilities (fresh context, the server's penalty)."""
    found = []
    for text, schema in ASKED:
        llm.reset()  # no prompt reuse: the logits must be computed the same way each time
        reply = llm.create_chat_completion([{"role": "user", "content": text}], max_tokens=32, seed=0,
                                           temperature=temperature, repeat_penalty=1.1, logprobs=True, top_logprobs=3,
                                           response_format={"type": "json_object", "schema": schema})
        choice = reply["choices"][0]
        found.append((choice["message"]["content"], choice["finish_reason"], choice["logprobs"]))
    return found


def test_answers_are_the_same_token_for_token_as_with_the_grammar_in_the_chain(
        llama: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_cpp.llama as module

    monkeypatch.setattr(module.Llama, "_init_sampler", module.Llama._init_sampler)  # restored after
    chain = answers(llama)
    made: list[GrammarLastGreedy] = []
    install_grammar_last_greedy()
    installed = module.Llama._init_sampler
    install_grammar_last_greedy()  # a second install changes nothing
    assert module.Llama._init_sampler is installed

    def recording(self: Any, **kwargs: Any) -> Any:
        sampler = installed(self, **kwargs)
        made.append(sampler)
        return sampler

    monkeypatch.setattr(module.Llama, "_init_sampler", recording)
    assert answers(llama) == chain
    assert all(isinstance(sampler, GrammarLastGreedy) for sampler in made) and len(made) == len(ASKED)
    # Both ways of choosing were taken: the model's favourite token was refused at some steps (the first
    # token of every answer here: the bare model would rather start a new line than a JSON object).
    assert all(sampler.refused >= 1 for sampler in made)
    assert sum(sampler.accepted for sampler in made) > len(ASKED)


def test_sampling_at_a_temperature_keeps_llama_cpp_python_s_chain(llama: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_cpp.llama as module

    monkeypatch.setattr(module.Llama, "_init_sampler", module.Llama._init_sampler)
    install_grammar_last_greedy()
    assert not isinstance(llama._init_sampler(temp=0.7, grammar=None), GrammarLastGreedy)
    assert not isinstance(llama._init_sampler(temp=0.0, grammar=None), GrammarLastGreedy)
