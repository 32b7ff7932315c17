from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade.dabench.reading._cells import answer_from_json, normalise_cell, read_answer_csv
from tracegrade.dabench.reading._records import AnswerTable
from tracegrade.errors import InputError


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("4200000", "4200000.00"),
        ("4200000.00", "4200000.00"),
        ("0.005", "0.01"),
        ("0.0049", "0.00"),
        ("-0.004", "0.00"),
        ("2.675", "2.68"),
        ("1e3", "1000.00"),
        ("001", "1.00"),
        ("+16.445", "16.45"),
        ("inf", "inf"),
        ("-Infinity", "-Infinity"),
        ("1,234", "1,234"),
        ("  Women's Soccer \r\n", "Women's Soccer"),
        ("Meeting", "Meeting"),
        ("meeting", "meeting"),
        ("True", "True"),
        ("2024-03-05", "2024-03-05"),
        ("2024-03-05 00:00:00", "2024-03-05"),
        ("2024-03-05 13:45:00", "2024-03-05T13:45:00"),
        ("2024-03-05T13:45:00+02:00", "2024-03-05T11:45:00Z"),
        ("2024-03-05T23:30:00-02:00", "2024-03-06T01:30:00Z"),
        ("2024-13-45", "2024-13-45"),
        ("0:01:54", "0:01:54"),
    ],
)
def test_normalise_cell_applies_the_documented_rules(raw: str, expected: str) -> None:
    assert normalise_cell(raw) == expected


@pytest.mark.parametrize("spelling", ["", "   ", "NULL", "null", "None", "nan", "NaN", "NaT", "<NA>", "<na>"])
def test_every_null_spelling_becomes_empty(spelling: str) -> None:
    assert normalise_cell(spelling) == ""


def test_decomposed_unicode_equals_composed() -> None:
    assert normalise_cell("Jose\u0301") == normalise_cell("Jos\u00e9")


def test_read_answer_csv_handles_bom_crlf_quotes_and_padding(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_bytes('\ufeffname,"SUM(a, b)"\r\n" Smith, J ",1\r\nLee,2.0\r\n'.encode())
    table = read_answer_csv(path, what="prediction")
    assert table == AnswerTable(("name", "SUM(a, b)"), ((" Smith, J ", "1"), ("Lee", "2.0")))
    assert normalise_cell(table.rows[0][0]) == "Smith, J"


def test_blank_line_is_a_null_cell_only_in_one_column_tables(tmp_path: Path) -> None:
    one = tmp_path / "one.csv"
    one.write_text("x\n1\n\n2\n")
    assert read_answer_csv(one, what="gold").rows == (("1",), ("",), ("2",))
    two = tmp_path / "two.csv"
    two.write_text("x,y\n1,2\n\n3,4\n")
    assert read_answer_csv(two, what="gold").rows == (("1", "2"), ("3", "4"))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"a,b\n1,2,3\n", "line 2 has 3 fields, the header has 2"),
        (b"", "no header row"),
        (b"a\n\xff\n", "not UTF-8"),
        (b"a\n\x001\n", "NUL byte"),
    ],
)
def test_unreadable_csv_is_an_input_error_naming_file_and_place(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "prediction.csv"
    path.write_bytes(data)
    with pytest.raises(InputError, match=message) as caught:
        read_answer_csv(path, what="prediction")
    assert caught.value.code == "invalid_prediction_csv"
    assert str(path) in caught.value.message


def test_header_only_csv_has_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("a,b\r\n")
    assert read_answer_csv(path, what="prediction") == AnswerTable(("a", "b"), ())


def test_answer_from_json_stringifies_like_the_csv_writer() -> None:
    table = answer_from_json({"columns": ["id", "x", "ok", "none"], "rows": [[163109, 0.1, True, None]]})
    assert table == AnswerTable(("id", "x", "ok", "none"), (("163109", "0.1", "True", ""),))
    assert answer_from_json({"columns": "id"}) is None
    assert answer_from_json(None) is None
