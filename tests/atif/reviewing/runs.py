"""Judge runs for the review tests: the bundled examples (or given trajectories) scored by a scripted judge whose
step scores spread over [0, 1], so every queue order and agreement figure has something to work with."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from tests.atif.scripted import scripted_answer
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "atif"
_CURRENT = re.compile(r'"current_step":(\{.*?\})\s*[,}]', re.DOTALL)
SCORES = (0.0, 0.25, 0.5, 0.75, 1.0, 0.9, 0.8)


def spread_rule(request: ReceivedRequest) -> ScriptedReply:
    """Every step gets one of SCORES, picked by a digest of the step the judge was shown (the same each run)."""
    body = request.json()
    prompt = body["messages"][-1]["content"]
    found = _CURRENT.search(prompt)
    digest = hashlib.sha256((found.group(1) if found else prompt).encode()).digest()
    score = SCORES[digest[0] % len(SCORES)]
    category = ("reasoning_failure", "context_loss", "none")[digest[1] % 3]
    return ScriptedReply.answer(scripted_answer(body, score=score, category=category))


def judged(inputs: Path, out: Path, *extra: str) -> Path:
    """``tracegrade judge inputs -o out`` against the scripted spread judge; returns the run folder."""
    with ScriptedJudgeServer(spread_rule) as server:
        code = run_app(app, ["judge", str(inputs), "--judge-url", server.base_url, "--judge-model", "scripted",
                             "-o", str(out), "--no-cache", "--quiet", "--partial-result-policy",
                             "skip_failed_trajectory", *extra])
    assert code in (0, 1), code
    return out
