"""The local judge server's ``tracegrade-plain`` chat format, with cheap answer log-probabilities.

The bundled Gemma 3 270M is a pretrained (not instruction-tuned) model: it continues plain text,
while Gemma's chat turn markers make it start over (measured: its label probabilities lost all
signal inside chat turns). So this format sends the messages' text joined by blank lines, with no
markers.

llama-cpp-python computes ``logprobs`` only with ``logits_all``, which makes the model project
every prompt token onto its 262k-token vocabulary and then sorts each answer token's whole
vocabulary in Python: a few seconds per call become tens of seconds. This handler instead records,
while the answer is sampled, each step's top alternatives straight from the logits the sampler
sees (before the grammar), so the server runs with ``--logits_all false``. Entries cover the
answer's tokens up to the last one the server evaluated (all of them when the answer ended
normally).

Imported only by the server process (``python -m tracegrade.judge.local._server``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["PLAIN_CHAT_FORMAT", "plain_prompt", "register_plain_format"]

PLAIN_CHAT_FORMAT = "tracegrade-plain"


def plain_prompt(messages: list[dict[str, Any]]) -> str:
    """The text of ``messages`` joined by blank lines (non-text content is left out)."""
    return "\n\n".join(m["content"] for m in messages if isinstance(m.get("content"), str))


def register_plain_format() -> None:
    """Register :data:`PLAIN_CHAT_FORMAT` with llama-cpp-python's chat handlers."""
    formats: Any = importlib.import_module("llama_cpp.llama_chat_format")

    def formatter(messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        return formats.ChatFormatterResponse(prompt=plain_prompt(messages))

    base = formats.chat_formatter_to_chat_completion_handler(formatter)
    formats.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        PLAIN_CHAT_FORMAT, _with_logprobs(base), overwrite=True
    )


def _with_logprobs(base: Callable[..., Any]) -> Callable[..., Any]:
    def handler(*, llama: Any, logprobs: bool | None = None, top_logprobs: int | None = None,
                logits_processor: Any = None, stream: bool = False, **kwargs: Any) -> Any:
        if not logprobs or stream:
            return base(llama=llama, logits_processor=logits_processor, stream=stream, **kwargs)
        from llama_cpp import LogitsProcessorList

        recorder = _Recorder(llama, max(int(top_logprobs or 0), 0))
        processors = LogitsProcessorList([recorder, *(logits_processor or [])])
        response = base(llama=llama, logits_processor=processors, stream=False, **kwargs)
        response["choices"][0]["logprobs"] = {"content": recorder.entries, "refusal": None}
        return response

    return handler


class _Recorder:
    """A logits processor that records each sampled token's log-probability and top alternatives."""

    def __init__(self, llama: Any, top: int) -> None:
        self._llama = llama
        self._top = top
        self._pending: tuple[Any, float, list[dict[str, Any]]] | None = None
        self._start: int | None = None
        self.entries: list[dict[str, Any]] = []

    def __call__(self, input_ids: Any, logits: Any) -> Any:
        import numpy as np

        if self._start is None:
            self._start = len(input_ids)
        elif self._pending is not None:  # the previous step's token is now the last input
            self._record(int(input_ids[-1]))
        values = np.asarray(logits, dtype=np.float64)
        peak = float(values.max())
        log_total = peak + float(np.log(np.exp(values - peak).sum()))
        count = min(self._top, values.size)
        best = np.argpartition(-values, count - 1)[:count] if count else np.empty(0, dtype=np.intp)
        best = best[np.argsort(-values[best], kind="stable")]
        top = [{"token": self._text(int(i)), "logprob": float(values[i]) - log_total, "bytes": None} for i in best]
        self._pending = (values, log_total, top)
        return logits

    def _record(self, token: int) -> None:
        assert self._pending is not None
        values, log_total, top = self._pending
        self.entries.append({"token": self._text(token), "logprob": float(values[token]) - log_total,
                             "bytes": None, "top_logprobs": top})
        self._pending = None

    def _text(self, token: int) -> str:
        raw: bytes = self._llama.detokenize([token])
        return raw.decode("utf-8", errors="ignore")
