from __future__ import annotations

import orjson
import pytest

from tests.atif.scripted import marker_rule
from tests.judge.batch_server import BatchServer, Plan
from tracegrade.errors import JudgeError
from tracegrade.judge import FINAL_STATUSES, BatchClient, BatchInfo, JudgeSettings, batch_line, parse_line


def test_a_line_is_read_as_an_answer_or_an_error_code() -> None:
    body = {"choices": [{"message": {"content": "{}"}}]}
    ok = orjson.dumps({"custom_id": "a", "response": {"status_code": 200, "body": body}, "error": None})
    assert parse_line(ok) == ("a", 200, orjson.dumps(body), None)
    failed = orjson.dumps({"custom_id": "b", "response": {"status_code": 429, "body": {"error": {}}}, "error": None})
    assert parse_line(failed) == ("b", 429, None, "http_status_429")
    expired = orjson.dumps({"custom_id": "c", "response": None, "error": {"code": "batch_expired", "message": "x"}})
    assert parse_line(expired) == ("c", None, None, "batch_request_error")
    assert parse_line(b"not json") is None and parse_line(b'{"response": {}}') is None
    line = batch_line("k", "/v1/chat/completions", {"model": "m"})
    assert orjson.loads(line) == {"custom_id": "k", "method": "POST", "url": "/v1/chat/completions",
                                  "body": {"model": "m"}} and line.endswith(b"\n")


async def test_the_documented_protocol_from_upload_to_output_and_cancel() -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": "<criteria>\n[]\n</criteria>\n"
                                                              "Answer question A (scores) about the last step."}]}
    content = batch_line("k1", "/v1/chat/completions", request) + batch_line("k2", "/v1/chat/completions", request)
    with BatchServer(marker_rule, [Plan(), Plan("cancelled", answered=0)]) as server:
        client = BatchClient(JudgeSettings(base_url=server.base_url, model="m"))
        try:
            file_id = await client.upload(content, "round.jsonl")
            created = await client.create(file_id, "24h", {"job": "j"})
            assert created.status == "validating" and created.status not in FINAL_STATUSES
            assert await client.find(file_id) == created
            seen = [created.status]
            while (info := await client.status(created.id)).status not in FINAL_STATUSES:
                seen.append(info.status)
            assert seen == ["validating", "in_progress", "finalizing"] and info.status == "completed"
            assert info.output_file_id is not None and info.counts["completed"] == 2
            lines = (await client.content(info.output_file_id)).splitlines()
            assert sorted(parse_line(line)[0] for line in lines) == ["k1", "k2"]  # type: ignore[index]
            other = await client.create(await client.upload(content, "r2.jsonl"), "24h", {})
            assert (await client.cancel(other.id)).status == "cancelling"
            assert (await client.status(other.id)).status == "cancelled"
            with pytest.raises(JudgeError) as caught:
                await client.status("batch_unknown")
            assert caught.value.code.startswith("http_status_")
        finally:
            await client.aclose()


def test_a_malformed_batch_object_is_a_protocol_error() -> None:
    with pytest.raises(JudgeError) as caught:
        BatchInfo.of({"id": 3})
    assert caught.value.code == "invalid_json"
