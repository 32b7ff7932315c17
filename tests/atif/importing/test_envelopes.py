from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest

from tests.atif.importing.otlp import TRACE, attrs, chat, messages, request, span, write
from tracegrade.atif.importing._envelopes import read_trace_file
from tracegrade.errors import InputError


def test_an_otlp_request_gives_spans_with_ids_times_attributes_status_and_events(tmp_path: Path) -> None:
    raw = span(2, 1, "chat m", 5, {"s": "x", "i": 7, "d": 0.5, "b": True, "a": ["p", "q"], "kv": {"k": 1}},
               error="boom", events=[{"name": "e", "timeUnixNano": "9", "attributes": attrs({"x": 1})}])
    found = read_trace_file(write(tmp_path, "t.json", request([raw])))
    (one,) = found.spans
    assert (one.trace_id, one.span_id, one.parent_id, one.name) == (TRACE, f"{2:016x}", f"{1:016x}", "chat m")
    assert one.attributes == {"s": "x", "i": 7, "d": 0.5, "b": True, "a": ["p", "q"], "kv": {"k": 1}}
    assert one.error == "boom" and one.events[0].name == "e" and one.events[0].attributes == {"x": 1}
    assert one.start_ns is not None and one.end_ns == one.start_ns + 1_000_000
    assert one.resource == {"service.name": "test-service"} and one.scope == "tests"
    assert found.formats == {"otlp-json"}


def test_log_records_are_returned_with_their_span_ids(tmp_path: Path) -> None:
    document = request([span(1, None, "chat m", 0, {})])
    document["resourceLogs"] = [{"scopeLogs": [{"logRecords": [
        {"traceId": TRACE, "spanId": f"{1:016x}", "eventName": "gen_ai.user.message",
         "body": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": "hi"}}]}}}]}]}]
    (log,) = read_trace_file(write(tmp_path, "t.json", document)).logs
    assert (log.trace_id, log.span_id, log.event.name, log.event.body) == (
        TRACE, f"{1:016x}", "gen_ai.user.message", {"content": "hi"})


def test_one_request_per_line_as_the_collector_file_exporter_writes(tmp_path: Path) -> None:
    lines = [orjson.dumps(request([span(1, None, "a", 0, {})])), orjson.dumps(request([span(2, 1, "b", 1, {})]))]
    path = tmp_path / "collector.json"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert [s.name for s in read_trace_file(path).spans] == ["a", "b"]


def test_sdk_span_dumps_one_per_line_with_iso_times_and_0x_ids(tmp_path: Path) -> None:
    dump = {"name": "chat", "context": {"trace_id": "0x" + TRACE, "span_id": "0x00000000000000aa"},
            "parent_id": None, "start_time": "2026-01-01T10:00:00.000001Z", "end_time": "2026-01-01T10:00:01Z",
            "status": {"status_code": "ERROR", "description": "bad"}, "attributes": {"k": "v"},
            "events": [{"name": "ev", "timestamp": "2026-01-01T10:00:00.5Z", "attributes": {}}],
            "resource": {"attributes": {"service.name": "svc"}}}
    path = tmp_path / "spans.jsonl"
    path.write_bytes(orjson.dumps(dump) + b"\n")
    (one,) = read_trace_file(path).spans
    assert (one.trace_id, one.span_id, one.parent_id, one.error) == (TRACE, "00000000000000aa", None, "bad")
    assert one.start_ns == 1_767_261_600_000_001_000 and one.resource == {"service.name": "svc"}


def test_integer_ids_wider_than_64_bits_are_read_exactly(tmp_path: Path) -> None:
    trace = int(TRACE, 16)
    raw = b'{"spans": [{"name": "x", "context": {"trace_id": %d, "span_id": 5}, "parent": {"span_id": null}}]}' % trace
    (tmp_path / "agent_trace.json").write_bytes(raw)
    (one,) = read_trace_file(tmp_path / "agent_trace.json").spans
    assert one.trace_id == TRACE and one.span_id == f"{5:016x}"


def test_base64_ids_as_protobuf_json_writes_them(tmp_path: Path) -> None:
    raw = span(1, None, "a", 0, {})
    raw["traceId"] = base64.b64encode(bytes.fromhex(TRACE)).decode()
    raw["spanId"] = base64.b64encode(bytes.fromhex("00000000000000ff")).decode()
    (one,) = read_trace_file(write(tmp_path, "t.json", request([raw]))).spans
    assert (one.trace_id, one.span_id) == (TRACE, "00000000000000ff")


def test_tempo_and_jaeger_exports(tmp_path: Path) -> None:
    tempo = {"batches": [{"resource": {"attributes": attrs({"service.name": "go"})}, "instrumentationLibrarySpans": [
        {"instrumentationLibrary": {"name": "lib"}, "spans": [span(1, None, "a", 0, {})]}]}]}
    assert read_trace_file(write(tmp_path, "tempo.json", tempo)).spans[0].scope == "lib"
    jaeger = {"data": [{"traceID": TRACE, "processes": {"p1": {"serviceName": "svc", "tags": []}}, "spans": [
        {"traceID": TRACE, "spanID": "00000000000000b1", "operationName": "op", "processID": "p1",
         "references": [{"refType": "CHILD_OF", "spanID": "00000000000000b0"}], "startTime": 10, "duration": 5,
         "tags": [{"key": "n", "type": "int64", "value": "3"}, {"key": "error", "type": "bool", "value": True},
                  {"key": "otel.status_description", "type": "string", "value": "down"}],
         "logs": [{"timestamp": 12, "fields": [{"key": "event", "type": "string", "value": "exception"}]}]}]}]}
    (one,) = read_trace_file(write(tmp_path, "jaeger.json", jaeger)).spans
    assert (one.parent_id, one.start_ns, one.end_ns, one.attributes, one.error) == (
        "00000000000000b0", 10_000, 15_000, {"n": 3}, "down")
    assert one.resource == {"service.name": "svc"} and one.events[0].name == "exception"


def test_a_bare_attribute_map_is_one_span_without_ids(tmp_path: Path) -> None:
    path = write(tmp_path, "chat.json", {"gen_ai.operation.name": "chat", "gen_ai.input.messages": messages()})
    (one,) = read_trace_file(path).spans
    assert one.trace_id == "" and one.attributes["gen_ai.operation.name"] == "chat"


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda s: s.update(spanId="zz"), "/resourceSpans/0/scopeSpans/0/spans/1/spanId: expected 16 hex digits"),
        (lambda s: s.update(traceId=None), "/resourceSpans/0/scopeSpans/0/spans/1/traceId: expected 32 hex digits"),
        (lambda s: s.update(attributes={"k": "v"}),
         "/resourceSpans/0/scopeSpans/0/spans/1/attributes: expected a list"),
        (lambda s: s["attributes"].append({"key": "n", "value": {"intValue": "x1"}}),
         "/resourceSpans/0/scopeSpans/0/spans/1/attributes/6/value/intValue: expected an integer, got 'x1'"),
        (lambda s: s.update(startTimeUnixNano="soon"),
         "/resourceSpans/0/scopeSpans/0/spans/1/startTimeUnixNano: expected an integer"),
    ],
)
def test_a_malformed_span_is_one_error_naming_the_file_and_the_pointer(tmp_path: Path, change, where: str) -> None:
    bad = chat(2, 1, 1, messages(("user", "hi")), messages(("assistant", "yo")))
    change(bad)
    path = write(tmp_path, "t.json", request([span(1, None, "a", 0, {}), bad]))
    with pytest.raises(InputError) as caught:
        read_trace_file(path)
    assert caught.value.message.startswith(f"{path}: {where}")


def test_invalid_json_names_the_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b'{"resourceSpans": [\n  {"scopeSpans": [}\n]}')
    with pytest.raises(InputError, match=r"t\.json:2:19: not valid JSON: [^(]*$"):
        read_trace_file(path)


def test_a_bad_line_of_a_jsonl_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    path.write_bytes(orjson.dumps(span(1, None, "a", 0, {})) + b"\n{nope\n")
    with pytest.raises(InputError, match=r"spans\.jsonl:2:2: not valid JSON: [^(]*$"):
        read_trace_file(path)


def test_json_that_is_not_a_trace_is_an_error_when_named_and_counted_when_found_in_a_folder(tmp_path: Path) -> None:
    path = write(tmp_path, "notes.json", {"schema": "x", "turns": []})
    with pytest.raises(InputError, match=r"notes\.json: not a trace: expected resourceSpans"):
        read_trace_file(path)
    found = read_trace_file(path, found_in_folder=True)
    assert found.spans == [] and found.tally.as_dict() == {"JSON document that is not a trace (skipped)": 1}


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("spans.jsonl", b'\n\n{"a": 1}\n', "spans.jsonl:3: not a trace: expected resourceSpans, batches, data, "
                                           "spans or span fields, got keys a"),
        ("spans.jsonl", b'\n\n{nope\n', "spans.jsonl:3:2: not valid JSON: unexpected character, expected a "
                                        "string key"),
        ("spans.jsonl", b'\n[1, NaN]\n', "spans.jsonl:2:5: not valid JSON: NaN and Infinity are not JSON"),
        ("spans.jsonl", b'\n"\xff"\n', "spans.jsonl:2:2: not valid JSON: invalid UTF-8 at byte 1"),
        ("spans.jsonl", b'\n{"spans": [1]}\n', "spans.jsonl:2: /spans/0: expected an object, got int"),
        ("t.json", b'{"a": 1,\n "b": }', "t.json:2:7: not valid JSON: unexpected character, expected a JSON value"),
    ],
)
def test_every_error_names_its_place_once(tmp_path: Path, name: str, data: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        read_trace_file(path)
    assert caught.value.message == f"{tmp_path}/{message}"
