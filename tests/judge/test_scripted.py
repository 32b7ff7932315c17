from __future__ import annotations

import orjson
import pytest

from tracegrade.judge import extract_json_object
from tracegrade.judge.testing import ReceivedRequest, ScriptedReply

VERDICT = {"scores": {"a": 0.5}, "rationale": "braces {like these} inside"}


@pytest.mark.parametrize(("body", "parsed"), [(b'{"a": [1]}', {"a": [1]}), (b"", None), (b"not json", None)])
def test_a_request_body_reads_as_json_or_none(body: bytes, parsed: object) -> None:
    assert ReceivedRequest(index=0, method="POST", path="/", headers={}, body=body).json() == parsed


@pytest.mark.parametrize("make", [ScriptedReply.answer, ScriptedReply.fenced, ScriptedReply.prose])
def test_every_answer_shape_holds_the_object_a_judge_client_extracts(make: object) -> None:
    reply = make(VERDICT)  # type: ignore[operator]
    assert reply.status == 200 and extract_json_object(reply.content) == VERDICT


def test_an_error_names_its_status_and_may_say_when_to_retry() -> None:
    reply = ScriptedReply.error(429, retry_after=2)
    assert (reply.status, reply.headers) == (429, (("retry-after", "2"),))
    assert orjson.loads(reply.body or b"") == {"error": {"message": "Too Many Requests"}}
    assert ScriptedReply.error(418).headers == () and ScriptedReply.error(500, body=b"x").body == b"x"


def test_stalled_dropped_and_huge_replies() -> None:
    assert ScriptedReply.stall(3.0).delay == 3.0 and ScriptedReply.dropped().drop
    assert len(ScriptedReply.huge(1000).content or "") == 1000


@pytest.mark.parametrize(("make", "marker"), [(ScriptedReply.fenced, "```json\n"), (ScriptedReply.prose, "{the step}")])
def test_fenced_and_prose_answers_wrap_the_object_in_text(make: object, marker: str) -> None:
    content = make(VERDICT).content or ""  # type: ignore[operator]
    assert marker in content
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(content)
