from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.suites.helpers import case, expectation, load, manifest, suite
from tracegrade.errors import InputError
from tracegrade.suites import RecordedResults, SuiteRunParameters, run_dataset
from tracegrade.suites.checking._records import AttemptRequest, Observation


def lines(tmp_path: Path, *items: Any) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(item if isinstance(item, str) else json.dumps(item) for item in items) + "\n")
    return path


def two_cases(tmp_path: Path) -> Any:
    return load(tmp_path, manifest(suite("s", [case("a", expectation("v", "/v", 1)),
                                               case("b", expectation("v", "/v", 2))])))


async def test_recorded_results_are_scored_with_their_timing_and_usage(tmp_path: Path) -> None:
    data = two_cases(tmp_path)
    path = lines(tmp_path, {"id": "a", "result": {"v": 1}, "elapsed_seconds": 1.5, "usage": {"input_tokens": 3}},
                 {"id": "a", "repetition": 2, "result": None}, {"id": "b", "result": {"v": 2}})
    report = await run_dataset(data, RecordedResults(path, data, 2), SuiteRunParameters(repeat=2))
    attempts = report.suites[0].attempts
    assert [(a.id, a.repetition, a.status, a.error_code) for a in attempts] == [
        ("a", 1, "completed", None), ("a", 2, "error", "invalid_result"), ("b", 1, "completed", None),
        ("b", 2, "error", "no_recorded_result")]
    assert attempts[0].elapsed_seconds == 1.5 and attempts[0].usage is not None
    assert attempts[0].usage["input_tokens"] == 3 and attempts[0].usage["output_tokens"] is None


@pytest.mark.parametrize(("item", "message"), [
    ('{"id": "a"}', "line 1: expected an object with id, result"),
    ('{"id": "zz", "result": {}}', "line 1: id 'zz' is not a case"),
    ('{"id": "a", "result": {}, "repetition": 3}', "line 1: repetition must be an integer from 1 to --repeat"),
    ('{"id": "a", "result": {}, "elapsed_seconds": -1}', "line 1: elapsed_seconds must be a non-negative"),
    ('{"id": "a", "result": {}, "extra": 1}', "line 1: expected an object"),
    ('{"id": "a", "result": {"x": NaN}}', "line 1: NaN and Infinity are not JSON"),
])
def test_bad_lines_are_named(tmp_path: Path, item: str, message: str) -> None:
    data = two_cases(tmp_path)
    with pytest.raises(InputError, match=message):
        RecordedResults(lines(tmp_path, item), data, 1)


def test_a_second_result_for_one_attempt_is_refused(tmp_path: Path) -> None:
    data = two_cases(tmp_path)
    with pytest.raises(InputError, match="line 2: a second result for id 'a' repetition 1"):
        RecordedResults(lines(tmp_path, {"id": "a", "result": {}}, {"id": "a", "repetition": 1, "result": {}}), data, 1)


def test_a_line_over_64_mib_is_refused_before_anything_is_scored(tmp_path: Path) -> None:
    """Issue 23 items 3 and 4: a 70 MB result line was scored (and lines of ``{}`` took 25 times their size)."""
    data = two_cases(tmp_path)
    big = {"id": "a", "result": {"v": 1, "pad": "x" * (70 * 1000 * 1000)}}
    path = lines(tmp_path, {"id": "b", "result": {"v": 2}}, big)
    with pytest.raises(InputError, match=rf"{path}: line 2 is over the limit of 67108864 bytes"):
        RecordedResults(path, data, 1)


async def test_a_results_file_over_64_mib_in_lines_under_the_cap_is_scored(tmp_path: Path) -> None:
    """Issue 27 item 3: only the per-line cap remains; the file is read line by line."""
    data = two_cases(tmp_path)
    pad = "x" * (34 * 1024 * 1024)
    path = lines(tmp_path, {"id": "a", "result": {"v": 1, "pad": pad}}, {"id": "b", "result": {"v": 3, "pad": pad}})
    assert path.stat().st_size > 64 * 1024 * 1024
    report = await run_dataset(data, RecordedResults(path, data, 1), SuiteRunParameters(details=False))
    assert [(a.id, a.passed) for a in report.suites[0].attempts] == [("a", True), ("b", False)]


def test_a_line_of_exactly_the_cap_is_read_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    from tracegrade.runs import read_lines

    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"abc\n\n  \nxy")
    assert list(read_lines(path, 3)) == [(1, b"abc"), (2, b""), (3, b"  "), (4, b"xy")]
    data = two_cases(tmp_path)
    results = lines(tmp_path, "", {"id": "a", "result": {"v": 1}}, "   ")
    assert RecordedResults(results, data, 1).describe()["path"] == str(results)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    data = two_cases(tmp_path)
    fifo = tmp_path / "results.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        RecordedResults(fifo, data, 1)


KINDS: list[tuple[Any, Observation]] = [
    ({"result": {"v": 1}, "elapsed_seconds": 2, "usage": {"input_tokens": 3}},
     Observation({"v": 1}, None, 2.0, {"input_tokens": 3})),
    ({"suite": "s", "result": [1], "elapsed_seconds": 0.5, "usage": [1]},
     Observation(None, "invalid_result", 0.5, None)),
    ({"result": None}, Observation(None, "invalid_result", None, None)),
    ({"repetition": 1, "result": {}, "elapsed_seconds": 1.0}, Observation({}, None, 1.0, None)),
    ('"result": {"q": "\\u0022"}', Observation({"q": '"'}, None, None, None)),  # in doubt: read one line at a time
    ({"result": {"big": "x" * 150_000}}, Observation({"big": "x" * 150_000}, None, None, None)),
    (None, Observation(None, "no_recorded_result")),
]
"""What a case's line says (None: no line), and the observation reading it alone gives."""


async def test_a_long_file_reads_as_its_lines_read_one_by_one(tmp_path: Path) -> None:
    """Lines are read in groups cut by count and by size: each case keeps its own line's observation."""
    names = [f"c{n:04d}" for n in range(900)]
    data = load(tmp_path, manifest(suite("s", [case(name, expectation("v", "/v", 1)) for name in names])))
    written: list[Any] = []
    for number, name in enumerate(names):
        spelling = KINDS[number * 5 % len(KINDS) if number % 97 else 5][0]  # every 97th line is 150 KB
        if isinstance(spelling, str):
            written.append(f'{{"id": "{name}", {spelling}}}')
        elif spelling is not None:
            written.append({"id": name, **spelling})
        if number % 11 == 0:
            written.append("")
    recorded = RecordedResults(lines(tmp_path, *written), data, 1)
    for number, name in enumerate(names):
        expected = KINDS[number * 5 % len(KINDS) if number % 97 else 5][1]
        found = await recorded.attempt(request(name), 1.0)
        assert found == expected, name
        assert expected.elapsed_seconds is None or type(found.elapsed_seconds) is float
    last = len(written) + 1
    for bad, message in [({"id": "c0000", "result": {}}, f"line {last}: a second result for id 'c0000' repetition 1"),
                         ({"id": "c0006", "result": {}, "elapsed_seconds": True}, f"line {last}: elapsed_seconds"),
                         ('{"id": "c0006", "id": "c0013", "result": {}}', f"line {last}: duplicate key 'id'"),
                         ({"id": "zz", "result": {}}, f"line {last}: id 'zz' is not a case")]:
        with pytest.raises(InputError, match=message):
            RecordedResults(lines(tmp_path, *written, bad, '{"id": '), data, 1)


def request(case_id: str, repetition: int = 1) -> AttemptRequest:
    return AttemptRequest("s", case_id, repetition, "wf", None, None, {}, None)


async def test_a_common_line_is_kept_as_its_bytes_and_decoded_when_asked_for(tmp_path: Path) -> None:
    """The file's results are not all held at once: each is decoded anew, equal to the first decoding."""
    data = two_cases(tmp_path)
    path = lines(tmp_path, {"id": "a", "result": {"v": 1, "n": [1.5, None]}, "elapsed_seconds": 0.25},
                 {"id": "b", "result": "text", "usage": {"input_tokens": 1}})
    recorded = RecordedResults(path, data, 1)
    assert recorded._lines[(None, "a", 1)] == path.read_bytes().splitlines()[0]
    first, again = await recorded.attempt(request("a"), 1.0), await recorded.attempt(request("a"), 1.0)
    assert first == again == Observation({"v": 1, "n": [1.5, None]}, None, 0.25, None)
    assert first.result is not again.result
    assert await recorded.attempt(request("b"), 1.0) == Observation(None, "invalid_result", None,
                                                                    {"input_tokens": 1})
