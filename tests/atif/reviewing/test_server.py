from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest

from tracegrade.atif.agreement._agree import measure_agreement
from tracegrade.atif.agreement._labels import read_labels
from tracegrade.atif.reviewing._figures import judge_rows
from tracegrade.atif.reviewing._queue import ReviewOrder
from tracegrade.atif.reviewing._run import read_review_run
from tracegrade.atif.reviewing._server import serve_review
from tracegrade.atif.reviewing._state import ReviewSettings, ReviewState


class Running:
    def __init__(self, server: ReviewState, url: str, http: aiohttp.ClientSession) -> None:
        self.server, self.url, self.http = server, url, http
        self.token = url.rstrip("/").rsplit("/", 1)[1]

    async def get(self, path: str) -> tuple[int, Any]:
        async with self.http.get(self.url + path) as response:
            body = await response.read()
            return response.status, orjson.loads(body) if response.content_type == "application/json" else body

    async def post(self, path: str, body: Any) -> tuple[int, Any]:
        async with self.http.post(self.url + path, json=body) as response:
            return response.status, await response.json()


async def start(run: Path, labels: Path, reviewer: str = "ann", **options: Any) -> AsyncIterator[Running]:
    server = ReviewState(read_review_run(run), ReviewSettings(labels=labels, reviewer=reviewer, resamples=200,
                                                                 **options))
    stop, ready = asyncio.Event(), asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve_review(server, ready=ready.set_result, stop=stop))
    url = await asyncio.wait_for(ready, 30)
    async with aiohttp.ClientSession() as http:
        yield Running(server, url, http)
    stop.set()
    await task


@pytest.fixture
async def review(examples_run: Path, tmp_path: Path) -> AsyncIterator[Running]:
    async for running in start(examples_run, tmp_path / "labels.jsonl"):
        yield running


async def test_the_page_and_api_answer_only_under_the_token(review: Running) -> None:
    status, page = await review.get("")
    assert status == 200 and b"tracegrade review" in page
    base = review.url.rsplit("/", 2)[0]
    for path in ("/", "/api/state", "/x" + review.token + "/", "/" + review.token[:-1] + "/api/state",
                 "/favicon.ico"):
        async with review.http.get(base + path) as response:
            assert response.status == 403, path
            assert "holds the token" in await response.text()
    async with review.http.post(base + "/api/answer", json={}) as response:
        assert response.status == 403


async def test_every_response_carries_the_security_headers_and_the_page_a_nonce_policy(review: Running) -> None:
    async with review.http.get(review.url) as response:
        policy = response.headers["Content-Security-Policy"]
        nonce = policy.split("'nonce-")[1].split("'")[0]
        html = await response.text()
    assert "default-src 'none'" in policy and "script-src 'nonce-" in policy and "unsafe" not in policy
    assert html.count(f'nonce="{nonce}"') == 3  # the layout's style, the page's style and its script
    assert "<script src" not in html and "http://" not in html and "https://" not in html  # nothing from outside
    async with review.http.get(review.url + "api/state") as response:
        assert response.headers["X-Frame-Options"] == "DENY" and response.headers["Cache-Control"] == "no-store"
        assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")


async def test_nothing_outside_the_runs_listed_files_is_served(review: Running) -> None:
    status, body = await review.get("files/report.html")
    assert status == 200 and b"<html" in body
    async with review.http.get(review.url + "files/report.html") as response:
        assert response.headers["Content-Security-Policy"].startswith("sandbox")
    for name in ("../../../../etc/passwd", "%2e%2e/%2e%2e/etc/passwd", "..%2f..%2fetc%2fpasswd", "labels.jsonl",
                 "manifest.json/../../x", "/etc/passwd"):
        status, body = await review.get("files/" + name)
        assert status in (403, 404), name
        assert b"root:" not in body


async def test_a_raw_request_with_dot_segments_or_another_host_is_refused(review: Running) -> None:
    port = int(review.url.split(":")[2].split("/")[0])
    token = review.token

    def raw(request: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(request)
            return sock.recv(65536)

    traversal = f"GET /{token}/files/../../../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    answer = await asyncio.to_thread(raw, traversal)
    assert answer.split(b" ")[1] in (b"403", b"404") and b"root:" not in answer
    rebound = f"GET /{token}/api/state HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n".encode()
    assert (await asyncio.to_thread(raw, rebound)).split(b" ")[1] == b"403"


async def test_a_post_from_another_origin_or_not_json_is_refused(review: Running) -> None:
    async with review.http.post(review.url + "api/undo", json={}, headers={"Origin": "http://evil.example"}) as r:
        assert r.status == 403
    async with review.http.post(review.url + "api/undo", data="{}") as r:
        assert r.status == 415


async def test_answer_skip_and_undo_walk_the_queue_and_write_agrees_format(review: Running, tmp_path: Path) -> None:
    status, data = await review.get("api/state")
    first = data["state"]["item"]
    assert status == 200 and first["position"] == 1 and first["judge"]["score"] is not None
    status, saved = await review.post("api/answer", {"node_id": first["node_id"], "step": first["step"],
                                                     "failed": True, "score": 0.25, "category": "context_loss",
                                                     "decisive": True, "note": "<script>x</script>"})
    assert status == 200 and saved["saved"] == 1 and saved["revealed"]["score"] == first["judge"]["score"]
    second = saved["state"]["item"]
    assert second["position"] == 2 and saved["state"]["progress"]["answered"] == 1
    status, again = await review.post("api/answer", {"node_id": first["node_id"], "step": first["step"],
                                                     "failed": False})
    assert status == 409 and "already has your answer" in again["error"]
    status, skipped = await review.post("api/skip", {"node_id": second["node_id"], "step": second["step"]})
    assert skipped["state"]["item"]["position"] == 3 and skipped["state"]["progress"]["skipped"] == 1
    status, undone = await review.post("api/undo", {})
    assert undone["undone"] == "skip" and undone["state"]["item"]["position"] == 2
    status, undone = await review.post("api/undo", {})
    assert undone["undone"] == "answer" and undone["state"]["item"]["position"] == 1
    assert undone["state"]["draft"] == {"failed": True, "score": 0.25, "category": "context_loss", "decisive": True,
                                        "note": "<script>x</script>"}
    status, nothing = await review.post("api/undo", {})
    assert status == 409 and "nothing to undo" in nothing["error"]
    lines = [orjson.loads(raw) for raw in (tmp_path / "labels.jsonl").read_bytes().splitlines()]
    assert [line.get("retract") for line in lines] == [None, True]
    assert lines[0]["reviewer"] == "ann" and lines[0]["extra"]["order"] == "lowest"
    with pytest.raises(Exception, match="no labels"):
        read_labels(tmp_path / "labels.jsonl")  # everything was taken back


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"node_id": "nope", "step": 1, "failed": True}, "must name a step of the review queue"),
        ({"step": 1, "failed": True}, "must name a step"),
        ({}, "must name a step"),
        ({"failed": "yes"}, "failed must be true or false"),
        ({"score": 1.5}, "score must be a number from 0 to 1"),
        ({"score": True}, "score must be a number"),
        ({"category": "bogus"}, "category must be one of"),
        ({"note": "only a note"}, "give at least one of"),
        ({"failed": True, "note": "x" * 5000}, "note must be text of at most"),
        ({"failed": True, "reviewer": "bob"}, "unknown fields: reviewer"),
    ],
)
async def test_a_malformed_answer_is_a_400_and_writes_nothing(review: Running, tmp_path: Path, body: dict[str, Any],
                                                              message: str) -> None:
    _, data = await review.get("api/state")
    item = data["state"]["item"]
    named = not body or "node_id" in body or "step" in body
    full = body if named else {"node_id": item["node_id"], "step": item["step"], **body}
    status, answer = await review.post("api/answer", full)
    assert status == 400 and message in answer["error"]
    assert not (tmp_path / "labels.jsonl").exists()


async def test_blind_review_hides_the_verdict_until_answered(examples_run: Path, tmp_path: Path) -> None:
    async for review in start(examples_run, tmp_path / "labels.jsonl", blind=True, order=ReviewOrder.RANDOM, seed=3):
        _, data = await review.get("api/state")
        item = data["state"]["item"]
        assert item["judge"] is None and data["state"]["blind"] is True and data["state"]["run"]["report"] is False
        raw = orjson.dumps(data)
        assert b"rationale" not in raw and b"criterion_scores" not in raw
        _, saved = await review.post("api/answer", {"node_id": item["node_id"], "step": item["step"], "failed": True})
        assert saved["revealed"]["rationale"] == "Scripted judge: no cue matched this step."
        assert saved["state"]["item"]["judge"] is None
        line = orjson.loads((tmp_path / "labels.jsonl").read_bytes())
        assert line["extra"]["order"] == "random" and line["extra"]["seed"] == 3


async def test_the_figures_are_agrees_and_a_second_reviewer_is_compared(examples_run: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    async for ann in start(examples_run, labels, "ann"):
        async for bob in start(examples_run, labels, "bob"):
            for reviewer, verdicts in ((ann, (True, False, True, True)), (bob, (True, True, True, False))):
                for failed in verdicts:
                    _, data = await reviewer.get("api/state")
                    item = data["state"]["item"]
                    status, _ = await reviewer.post("api/answer", {"node_id": item["node_id"], "step": item["step"],
                                                                   "failed": failed, "score": 0.5 if failed else 1})
                    assert status == 200
            status, figures = await ann.get("api/figures")
    assert status == 200 and figures["labels"] == 4 and figures["orders"] == {"lowest": 4}
    results = read_review_run(examples_run).results
    mine = [label for label in read_labels(labels) if label.reviewer == "ann"]
    expected = judge_rows(measure_agreement(results, mine, labels_file=str(labels), resamples=200))
    assert figures["judge"]["rows"] == expected
    (other,) = figures["others"]
    assert other["reviewer"] == "bob" and other["common_steps"] == 4
    between = {row["measure"]: row for row in other["between"]}
    assert between["pass/fail agreement"]["value"] == 0.5 and between["pass/fail agreement"]["n"] == 4
    assert "too few pairs" in between["pass/fail agreement"]["trust"]


async def test_a_blind_review_does_not_tell_why_a_step_is_contested(examples_run: Path, tmp_path: Path) -> None:
    reasons = []
    for blind in (False, True):
        async for review in start(examples_run, tmp_path / "labels.jsonl", blind=blind, order=ReviewOrder.CONTESTED):
            _, data = await review.get("api/state")
            reasons.append(data["state"]["item"]["contested"])
    assert reasons[0] is not None and reasons[1] is None
