from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade.atif.reading._document import DocumentProblem, read_bounded


@pytest.mark.parametrize("size", [0, 1, 65_535, 65_536, 300_001])
def test_read_bounded_returns_the_whole_file(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path = tmp_path / "t.json"
    path.write_bytes(data)
    assert read_bounded(path, 10 * 1024 * 1024) == data


def test_read_bounded_refuses_a_file_over_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b"x" * 101)
    problem = read_bounded(path, 100)
    assert isinstance(problem, DocumentProblem) and problem.code == "too_large"


def test_a_json_object_that_is_not_a_trajectory_is_named_so() -> None:
    from tracegrade.atif import LoadOptions
    from tracegrade.atif.reading._document import validate_document

    other = validate_document({"resourceSpans": []}, LoadOptions())
    assert isinstance(other, tuple) and other[0] == "schema_violation"
    assert other[1].startswith("not an ATIF trajectory (no schema_version, agent, steps): /")
    broken = validate_document({"schema_version": "ATIF-v1.6"}, LoadOptions())
    assert isinstance(broken, tuple) and broken[1].startswith("/")  # an ATIF document with faults: the faults


@pytest.mark.parametrize(
    ("name", "data", "described"),
    [
        ("many.jsonl", b'{"x": 1}\n', "many.jsonl:1: not an ATIF trajectory (no schema_version, agent, steps): "
                                      "/agent: Field required (+2 more)"),
        ("many.jsonl", b"\n\n{nope\n", "many.jsonl:3:2: unexpected character, expected a string key"),
        ("many.jsonl", b'[1,\n', "many.jsonl:1:4: unexpected end of data"),
        ("many.jsonl", b'\n[1, NaN]\n', "many.jsonl:2:5: NaN and Infinity are not JSON"),
        ("many.jsonl", b'\n{"a": 1, "a": 2}\n', "many.jsonl:2: /a: duplicate key 'a'"),
        ("many.jsonl", b'\n\n"\xff"\n', "many.jsonl:3:2: invalid UTF-8 at byte 1"),
        ("many.jsonl", b'\n{"schema_version": "ATIF-v9"}\n',
         "many.jsonl:2: /schema_version 'ATIF-v9' is not supported (ATIF-v1.0 to ATIF-v1.8)"),
        ("one.json", b'{"a":\n  1,}', "one.json:2:4: trailing comma is not allowed"),
        ("one.json", b'{"a": 1, "a": 2}', "one.json: /a: duplicate key 'a'"),
        ("one.json", b"[]", "one.json: expected a JSON object, got list"),
    ],
)
def test_a_problem_names_its_place_once_as_file_line_column(
    tmp_path: Path, name: str, data: bytes, described: str
) -> None:
    from tracegrade.atif import LoadOptions
    from tracegrade.atif.reading._document import read_documents

    (tmp_path / name).write_bytes(data)
    (problem,) = [d for d in read_documents(tmp_path / name, LoadOptions()) if isinstance(d, DocumentProblem)]
    assert problem.describe() == f"{tmp_path / name}{described[len(name):]}"


_HEAD = b'{"schema_version": "ATIF-v1.6", "agent": {"name": "a", "version": "1"}, "steps": [{"step_id": 1, '


@pytest.mark.parametrize(
    ("step", "described"),
    [
        (b'"source": "user", "message": 42}]}', "/steps/0/message: Input should be a valid string or a valid list"),
        (b'"source": "user", "message": [{"type": "text"}]}]}',
         "/steps/0/message/0: 'text' field is required when type='text' (+1 more)"),
        (b'"source": "user", "message": [{"type": "image", "source": {"media_type": 5}}]}]}',
         "/steps/0/message/0/source/media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or "
         "'image/webp' (+5 more)"),
    ],
)
def test_a_place_is_the_documents_never_a_union_branch_of_the_parser(tmp_path: Path, step: bytes,
                                                                     described: str) -> None:
    from tracegrade.atif import LoadOptions
    from tracegrade.atif.reading._document import read_documents

    (tmp_path / "t.json").write_bytes(_HEAD + step)
    (problem,) = [d for d in read_documents(tmp_path / "t.json", LoadOptions()) if isinstance(d, DocumentProblem)]
    assert problem.describe() == f"{tmp_path / 't.json'}: {described}"  # before: /steps/0/message/str: …
