"""An in-process judge whose answers come from markers in the steps, after a chosen delay.

Built on :class:`tracegrade.judge.testing.FakeJudge`: ``SCORE:x`` scores every criterion ``x``,
``FAIL`` answers a transport error, ``SLOW`` a timeout, ``CAT:name`` picks the category
(``CAT:http500`` answers the categorisation with an HTTP 500).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from tests.atif.scripted import current_message
from tracegrade.errors import JudgeError
from tracegrade.judge import JudgeRequest
from tracegrade.judge.testing import FakeJudge

_LOCAL_CURRENT = re.compile(r"\nStep:\nMessage: (.*)")


def local_answer(p_none: float) -> dict[str, Any]:
    """A local-judge verdict whose token probabilities give the label ``none`` ``p_none`` of the label mass."""
    top = [{"token": "none", "logprob": math.log(p_none)}] if p_none > 0 else []
    if p_none < 1:
        top.append({"token": "made", "logprob": math.log(1 - p_none)})
    label = "none" if p_none >= 0.5 else "made up facts"
    tokens = [{"token": '{"problem": "', "logprob": 0.0, "top_logprobs": []},
              {"token": label.split()[0], "logprob": -0.1, "top_logprobs": top},
              {"token": label[len(label.split()[0]):] + '"}', "logprob": 0.0, "top_logprobs": []}]
    return {"answer": {"problem": label}, "logprobs": tokens}


def marker_answer(request: JudgeRequest) -> dict[str, Any] | Exception:
    prompt = request.messages[-1]["content"]
    local = request.top_logprobs is not None and _LOCAL_CURRENT.search(prompt.rsplit("\n\nTask: ", 1)[-1])
    message = local.group(1) if local else current_message(prompt)
    if request.purpose == "derive":
        return {"criteria": [{"name": "fits_task", "description": "Serves the task", "weight": 1}]}
    if request.purpose == "categorize":
        category = re.search(r"CAT:(\w+)", message)
        if category and category.group(1) == "http500":
            return JudgeError("scripted server error", code="http_status_500")
        return {"category": category.group(1) if category else "reasoning_failure", "rationale": "marker"}
    if "FAIL" in message:
        return JudgeError("scripted transport failure", code="transport_error")
    if "SLOW" in message:
        return JudgeError("scripted timeout", code="timeout")
    score = re.search(r"SCORE:([0-9.]+)", message)
    if local:
        return local_answer(float(score.group(1)) if score else 0.9)
    names = request.response_schema["properties"]["scores"]["required"]
    return {"scores": dict.fromkeys(names, float(score.group(1)) if score else 0.9), "rationale": "marker"}


def marker_judge(delay: Callable[[JudgeRequest], float] | None = None) -> FakeJudge:
    """A FakeJudge answering by the markers in the steps, each answer after ``delay(request)`` seconds."""
    return FakeJudge(marker_answer, delay=delay)
