"""Judge runs for the review tests: the bundled examples (or given trajectories) scored by a scripted judge whose
step scores spread over [0, 1], so every queue order and agreement figure has something to work with."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from tests.atif.scripted import scripted_answer
from tracegrade.cli._app import app, run_app
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples" / "atif"
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


class Server:
    """``tracegrade review`` in its own process, as a user starts it."""

    def __init__(self, run: Path, labels: Path, *args: str, reviewer: str = "ann") -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "DISPLAY": ""}
        code = "from tracegrade.cli import main; main()"
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, "review", str(run), "--labels", str(labels), "--reviewer", reviewer,
             "--no-open", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert self.process.stdout is not None
        self.printed: list[str] = []
        for line in self.process.stdout:
            self.printed.append(line)
            if line.startswith("Review page: "):
                self.url = line.removeprefix("Review page: ").strip()
                break
        else:
            raise AssertionError("".join(self.printed) + self.process.stderr.read())  # type: ignore[union-attr]

    def call(self, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def answer_current(self, **values: Any) -> Any:
        item = self.call("api/state")["state"]["item"]
        return self.call("api/answer", {"node_id": item["node_id"], "step": item["step"], **values})

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> str:
        """End the server as Ctrl-C does; what it printed."""
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=60)
        return "".join(self.printed) + out
