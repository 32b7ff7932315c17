"""Property-based fuzzing of every parser: no crash, no hang, no path escape, only clear errors.

Each parser gets arbitrary and hostile input (random text and bytes, mutated valid documents, huge
numbers, deep nesting, odd keys) and must either succeed or raise the product's own error for bad
input. Any other exception is a crash. The inputs are bounded in size and count, never in time (no
deadline: a loaded machine must not fail a test; how fast the parsers are is for ``benchmarks/``).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.atif.scripted import trajectory
from tracegrade.atif import load_trajectories
from tracegrade.atif.asking._replies import score_parser
from tracegrade.atif.criteria._reference import load_reference_rubric
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.dabench.reading._cells import read_answer_csv
from tracegrade.dabench.reading._traces import read_trace
from tracegrade.errors import ConfigError, InputError, JudgeError
from tracegrade.judge._extract import extract_verdict, parse_chat_body
from tracegrade.judge._judge import PROTOCOL_ERROR_CODES
from tracegrade.rubric import Criterion, Rubric, parse_rubric_text, rubric_from_data
from tracegrade.rubric._yaml import TextParseError
from tracegrade.suites import load_dataset

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

hostile_numbers = st.sampled_from([10**400, -(10**400), 2**1024, 1e308, 5e-324, -0.0, 0, -1, 2**63, 1.5e300])
hostile_text = st.sampled_from(["", " ", "\x00", "../../etc/passwd", "/etc/passwd", "</evidence>", "\ud7ff" * 3,
                                "x" * 5000, "{", "\\", "NaN", "1e999", "🙂"])
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | \
    st.text(max_size=20) | hostile_numbers | hostile_text
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) |
                           st.dictionaries(st.text(max_size=10) | hostile_text, inner, max_size=4), max_leaves=20)


def mutate(document: Any, data: st.DataObject) -> Any:
    """Replace one randomly chosen value inside ``document`` with a hostile one."""
    if isinstance(document, dict) and document and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(document)))
        return {**document, key: mutate(document[key], data)}
    if isinstance(document, list) and document and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(document) - 1))
        return [*document[:index], mutate(document[index], data), *document[index + 1:]]
    return data.draw(json_values)


def dumped(value: Any) -> bytes:
    return json.dumps(value).encode()  # json, not orjson: big integers and -0.0 survive


def text_damage(raw: bytes, data: st.DataObject) -> bytes:
    kind = data.draw(st.sampled_from(["truncate", "insert", "flip", "none"]))
    at = data.draw(st.integers(0, len(raw)))
    if kind == "truncate":
        return raw[:at]
    if kind == "insert":
        return raw[:at] + data.draw(st.binary(max_size=20) | st.sampled_from([b"9" * 5000, b"[" * 5000, b'"\\u']))
    if kind == "flip" and raw:
        index = min(at, len(raw) - 1)
        return raw[:index] + bytes([raw[index] ^ 0xFF]) + raw[index + 1:]
    return raw


# --- ATIF documents ---------------------------------------------------------------------------------

def load_both_ways(path: Path) -> None:
    for strict in (True, False):
        with contextlib.suppress(InputError):
            load_trajectories([path], LoadOptions(strict=strict), reports=True)


@FUZZ
@given(data=st.data())
def test_atif_reader_survives_mutated_documents(tmp_path: Path, data: st.DataObject) -> None:
    document = trajectory("task", "SCORE:0.5", "more", session_id="s")
    path = tmp_path / "t.json"
    path.write_bytes(text_damage(dumped(mutate(document, data)), data))
    load_both_ways(path)


@FUZZ
@given(raw=st.binary(max_size=600))
def test_atif_reader_survives_arbitrary_bytes(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(raw)
    load_both_ways(path)


ref_paths = st.sampled_from(["../outside.json", "../../outside.json", "/{outside}", "sub/../../outside.json",
                             "link/outside.json", "file://{outside}", "./../outside.json", "sub/../link/outside.json"])


@FUZZ
@given(ref=ref_paths, as_continuation=st.booleans())
def test_atif_references_never_leave_the_input_folder(tmp_path_factory: pytest.TempPathFactory, ref: str,
                                                      as_continuation: bool) -> None:
    base = tmp_path_factory.mktemp("refs")
    (base / "root" / "sub").mkdir(parents=True)
    outside = base / "outside.json"
    outside.write_bytes(orjson.dumps(trajectory("task", "secret", session_id="OUTSIDE")))
    (base / "root" / "link").symlink_to(base)
    target = ref.format(outside=outside)
    refs = {2: [{"trajectory_path": target}]} if not as_continuation else None
    extra = {"continued_trajectory_ref": target} if as_continuation else {}
    (base / "root" / "t.json").write_bytes(orjson.dumps(trajectory("task", "delegate", refs=refs, **extra)))
    try:
        result = load_trajectories([base / "root"], LoadOptions(strict=False), reports=True)
    except InputError:
        return
    assert "OUTSIDE" not in repr(result.roots)


# --- rubrics and reference registries ----------------------------------------------------------------

RUBRIC = {"name": "r", "criteria": [{"name": "a", "description": "A", "weight": 2},
                                    {"name": "b", "description": "B", "weight": 1}]}


def check_rubric(rubric: Rubric) -> None:
    scores = {c.name: 0.5 for c in rubric.criteria}
    assert rubric.score(scores) == 0.5


@FUZZ
@given(text=st.text(max_size=400))
def test_rubric_text_parser_survives_arbitrary_text(text: str) -> None:
    with contextlib.suppress(TextParseError, ConfigError):
        check_rubric(rubric_from_data(parse_rubric_text(text), where="fuzz"))


@FUZZ
@given(data=st.data(), as_yaml=st.booleans())
def test_rubric_parser_survives_mutated_rubrics(data: st.DataObject, as_yaml: bool) -> None:
    mutated = mutate(RUBRIC, data)
    try:
        text = _yaml(mutated) if as_yaml else json.dumps(mutated)
    except (ValueError, OverflowError):
        return
    with contextlib.suppress(TextParseError, ConfigError):
        check_rubric(rubric_from_data(parse_rubric_text(text), where="fuzz"))
    with contextlib.suppress(ConfigError):  # the same data handed over as an object (provider_params.rubric)
        check_rubric(rubric_from_data(mutated, where="fuzz"))


def _yaml(value: Any) -> str:
    import yaml

    return yaml.safe_dump(value)


@FUZZ
@given(data=st.data())
def test_reference_registry_loader_survives_mutated_registries(tmp_path: Path, data: st.DataObject) -> None:
    registry = {"version": 1, "rubrics": {"r": {**RUBRIC, "references": {"default": {"answer": "x"}}}}}
    path = tmp_path / "registry.json"
    path.write_bytes(text_damage(dumped(mutate(registry, data)), data))
    try:
        loaded = load_reference_rubric(str(path), "r")
    except (ConfigError, InputError):
        return
    check_rubric(loaded.rubric)


# --- judge answers -------------------------------------------------------------------------------------

PARSE = score_parser(Rubric(criteria=(Criterion(name="a", description="A"), Criterion(name="b", description="B"))))


@FUZZ
@given(raw=st.binary(max_size=300) | st.builds(lambda v: dumped({"choices": [{"message": {"content": v}}]}),
                                               json_values))
def test_chat_body_parser_survives_arbitrary_bodies(raw: bytes) -> None:
    try:
        parse_chat_body(raw)
    except JudgeError as error:
        assert error.code in PROTOCOL_ERROR_CODES


verdicts = st.fixed_dictionaries({"scores": st.dictionaries(st.sampled_from(["a", "b", "c"]), scalars, max_size=3),
                                  "rationale": scalars})


@FUZZ
@given(before=st.text(max_size=60), answer=verdicts | json_values, after=st.text(max_size=60))
def test_score_extraction_yields_a_valid_verdict_or_a_protocol_error(before: str, answer: Any, after: str) -> None:
    try:
        reply = extract_verdict(f"{before}{json.dumps(answer)}{after}", PARSE)
    except JudgeError as error:
        assert error.code in PROTOCOL_ERROR_CODES
        return
    assert set(reply.scores) == {"a", "b"} and all(0.0 <= v <= 1.0 for v in reply.scores.values())


# --- suite datasets, DataAgent-Bench traces and CSVs -----------------------------------------------------

DATASET = {"name": "d", "revision": "1", "suites": [{"name": "s", "workflow": "w", "cases": [
    {"id": "c", "input": {"payload": 1}, "expectations": [{"name": "v", "path": "/v", "expected": 1}]}]}]}


@FUZZ
@given(data=st.data())
def test_suite_dataset_loader_survives_mutated_datasets(tmp_path: Path, data: st.DataObject) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(text_damage(dumped(mutate(DATASET, data)), data))
    with contextlib.suppress(InputError):
        load_dataset(path)


@pytest.mark.parametrize("ref", ["../outside.json", "sub/../../outside.json", "link/outside.json"])
def test_suite_case_files_never_leave_the_dataset_folder(tmp_path: Path, ref: str) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "outside.json").write_text(json.dumps(DATASET["suites"][0]["cases"]))
    (tmp_path / "data" / "link").symlink_to(tmp_path)
    dataset = {**DATASET, "suites": [{**DATASET["suites"][0], "cases": ref}]}
    (tmp_path / "data" / "d.json").write_text(json.dumps(dataset))
    with pytest.raises(InputError, match="case file"):
        load_dataset(tmp_path / "data" / "d.json")


TRACE = {"task_id": "1", "steps": [{"step": 1, "action": "list_context", "action_input": {}, "observation": "x"},
                                   {"step": 2, "action": "answer", "action_input": {"columns": ["a"], "rows": [[1]]},
                                    "observation": "ok"}]}


@FUZZ
@given(data=st.data())
def test_dabench_trace_reader_survives_mutated_traces(tmp_path: Path, data: st.DataObject) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(text_damage(dumped(mutate(TRACE, data)), data))
    with contextlib.suppress(InputError):
        read_trace(path)


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@FUZZ
@given(raw=st.binary(max_size=400) | st.text(max_size=400).map(str.encode) |
       st.sampled_from([b"a\n" + b"x" * 200_000, b'a\n"' + b"x" * 200_000, b"a,b\r\n1\r\n", b"\xef\xbb\xbf"]))
def test_dabench_csv_reader_survives_arbitrary_bytes(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "prediction.csv"
    path.write_bytes(raw)
    with contextlib.suppress(InputError):
        read_answer_csv(path, what="prediction")


# --- bugs the fuzzing found (each fixed; these keep them fixed) ----------------------------------------


def test_a_five_thousand_digit_integer_in_a_suite_dataset_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text(json.dumps(DATASET).replace('"payload": 1', '"payload": ' + "9" * 5000))
    with pytest.raises(InputError):
        load_dataset(tmp_path / "d.json")


def test_a_null_suite_dataset_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text("null")
    with pytest.raises(InputError):
        load_dataset(tmp_path / "d.json")


def test_a_null_case_file_is_an_input_error_not_a_missing_suite(tmp_path: Path) -> None:
    (tmp_path / "cases.json").write_text("null")
    dataset = {**DATASET, "suites": [{**DATASET["suites"][0], "name": "file", "cases": "cases.json"},
                                     DATASET["suites"][0]]}
    (tmp_path / "d.json").write_text(json.dumps(dataset))
    with pytest.raises(InputError):
        load_dataset(tmp_path / "d.json")


def test_a_trace_step_whose_action_is_a_list_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "trace.json").write_text(json.dumps({**TRACE, "steps": [{**TRACE["steps"][0], "action": []}]}))
    with pytest.raises(InputError):
        read_trace(tmp_path / "trace.json")


def test_a_csv_cell_over_128_kib_is_read_or_refused_clearly(tmp_path: Path) -> None:
    (tmp_path / "prediction.csv").write_bytes(b"a\n" + b"x" * 200_000 + b"\n")
    try:
        table = read_answer_csv(tmp_path / "prediction.csv", what="prediction")
    except InputError:
        return
    assert len(table.rows[0][0]) == 200_000
