"""Hostile inputs: each must end in a clear, located error, never a crash or a silent load."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest

from tests.atif.helpers import delegating, trajectory, write
from tracegrade.atif import LoadOptions, load_trajectories
from tracegrade.atif.reading._records import NodeStatus
from tracegrade.errors import InputError


def _problem(tmp_path: Path, name: str = "bad.json") -> tuple[str | None, str]:
    result = load_trajectories([tmp_path], LoadOptions(strict=False))
    (account,) = [a for a in result.inputs if a.path.endswith(name)]
    return account.code, account.message or ""


def test_deep_nesting(tmp_path: Path) -> None:
    write(tmp_path / "bad.json", b"[" * 100_000 + b"]" * 100_000)
    code, message = _problem(tmp_path)
    assert code == "too_deep" and "bad.json" in message


def test_deep_nesting_inside_extra(tmp_path: Path) -> None:
    doc = trajectory()
    nested = b'"extra":' + b'{"a":' * 5000 + b"1" + b"}" * 5000
    raw = __import__("orjson").dumps(doc).replace(b'"steps"', nested + b',"steps"', 1)
    write(tmp_path / "bad.json", raw)
    assert _problem(tmp_path)[0] == "too_deep"


def test_hundred_megabyte_file_is_refused_without_reading(tmp_path: Path) -> None:
    big = tmp_path / "bad.json"
    with big.open("wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: refused by size before any read
    code, message = _problem(tmp_path)
    assert code == "too_large" and "max_file_bytes" in message


def test_path_traversal_ref_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "root.json", delegating({"trajectory_path": "../../etc/passwd"}))
    result = load_trajectories([tmp_path])
    (child,) = result.roots[0].children
    assert child.status is NodeStatus.INVALID and child.reason == "ref_outside_root"
    assert "outside the input root" in (child.message or "")


def test_absolute_ref_outside_root_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "in/root.json", delegating({"trajectory_path": str(tmp_path / "out.json")}))
    write(tmp_path / "out.json", trajectory())
    (child,) = load_trajectories([tmp_path / "in"]).roots[0].children
    assert child.reason == "ref_outside_root"


def test_url_ref_is_refused(tmp_path: Path) -> None:
    write(
        tmp_path / "root.json",
        delegating({"trajectory_path": "s3://bucket/t.json"}, {"trajectory_path": "https://x/t.json"}),
    )
    children = load_trajectories([tmp_path]).roots[0].children
    assert [c.reason for c in children] == ["url_ref", "url_ref"]


def test_symlink_out_of_root_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "secret.json", trajectory())
    write(tmp_path / "in/root.json", delegating({"trajectory_path": "link.json"}))
    os.symlink(tmp_path / "secret.json", tmp_path / "in/link.json")
    result = load_trajectories([tmp_path / "in"])
    assert [c.reason for c in result.roots[0].children] == ["ref_outside_root"]
    assert [a.code for a in result.inputs if a.status == "skipped"] == ["ref_outside_root"]


def test_symlink_loop(tmp_path: Path) -> None:
    write(tmp_path / "root.json", delegating({"trajectory_path": "loop1.json"}))
    os.symlink(tmp_path / "loop2.json", tmp_path / "loop1.json")
    os.symlink(tmp_path / "loop1.json", tmp_path / "loop2.json")
    os.symlink(tmp_path, tmp_path / "dirloop")
    result = load_trajectories([tmp_path])
    assert [c.reason for c in result.roots[0].children] == ["symlink_loop"]
    assert len(result.roots) == 1


def test_self_referencing_file_is_a_cycle(tmp_path: Path) -> None:
    write(tmp_path / "self.json", delegating({"trajectory_path": "self.json"}))
    (root,) = load_trajectories([tmp_path]).roots
    (child,) = root.children
    assert child.status is NodeStatus.INVALID and child.reason == "cycle"


def test_two_file_cycle_still_yields_a_root(tmp_path: Path) -> None:
    write(tmp_path / "a.json", delegating({"trajectory_path": "b.json"}))
    write(tmp_path / "b.json", delegating({"trajectory_path": "a.json"}))
    (root,) = load_trajectories([tmp_path]).roots
    assert root.node_id == "a.json" and root.children[0].children[0].reason == "cycle"


def test_continuation_cycle(tmp_path: Path) -> None:
    write(tmp_path / "a.json", trajectory(continued_trajectory_ref="b.json"))
    write(tmp_path / "b.json", trajectory(continued_trajectory_ref="a.json"))
    (root,) = load_trajectories([tmp_path]).roots
    assert len(root.steps) == 4 and root.children[0].reason == "cycle"


def test_duplicate_embedded_ids(tmp_path: Path) -> None:
    subs = [trajectory(trajectory_id="x"), trajectory(trajectory_id="x")]
    write(tmp_path / "bad.json", trajectory(subagent_trajectories=subs))
    code, message = _problem(tmp_path)
    assert code == "schema_violation" and "not unique" in message


def test_invalid_utf8(tmp_path: Path) -> None:
    write(tmp_path / "bad.json", b'{"schema_version": "\xff\xfe"}')
    code, message = _problem(tmp_path)
    assert code == "invalid_utf8" and "byte 20" in message


def test_duplicate_keys(tmp_path: Path) -> None:
    write(tmp_path / "bad.json", b'{"agent": {"name": "a", "version": "1"}, "steps": [], "steps": []}')
    code, message = _problem(tmp_path)
    assert code == "duplicate_key" and "'steps'" in message


def test_duplicate_keys_nested_in_step(tmp_path: Path) -> None:
    raw = __import__("orjson").dumps(trajectory()).replace(b'"message":"m1"', b'"message":"m1","message":"x"')
    write(tmp_path / "bad.json", raw)
    assert _problem(tmp_path)[0] == "duplicate_key"


def test_keys_ending_in_backslash_are_not_false_duplicates(tmp_path: Path) -> None:
    doc = trajectory(extra={"a\\": 1, "b\\\\": {"c": 'x":y'}})
    write(tmp_path / "ok.json", doc)
    assert load_trajectories([tmp_path]).roots[0].trajectory is not None


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
def test_nan_and_infinity(tmp_path: Path, literal: bytes) -> None:
    write(tmp_path / "bad.json", b'{"final_metrics": {"total_cost_usd": ' + literal + b"}}")
    code, message = _problem(tmp_path)
    assert code == "invalid_json" and re.search(r"bad\.json:1:\d+: NaN and Infinity are not JSON$", message)


def test_strict_error_is_one_line(tmp_path: Path) -> None:
    write(tmp_path / "bad.json", b"[" * 3000)
    with pytest.raises(InputError) as info:
        load_trajectories([tmp_path])
    assert "\n" not in str(info.value) and "bad.json" in str(info.value)


def test_duplicate_key_masked_by_unicode_escaped_quote(tmp_path: Path) -> None:
    raw = b'{"agent": {"name": "a\\u0022", "version": "1"}, "steps": [], "steps": []}'
    write(tmp_path / "bad.json", raw)
    assert _problem(tmp_path)[0] == "duplicate_key"


def test_duplicate_key_in_pretty_printed_json(tmp_path: Path) -> None:
    write(tmp_path / "bad.json", b'{\n  "agent" : {"name": "a", "version": "1"},\n  "agent" : {"name": "b"}\n}')
    assert _problem(tmp_path)[0] == "duplicate_key"


def test_escaped_quotes_and_colons_in_strings_are_not_duplicates(tmp_path: Path) -> None:
    doc = trajectory(extra={"json": '{"a": 1, "a": 2}', "q": 'say "hi": now', "u": "\u0022"})
    write(tmp_path / "ok.json", doc)
    assert load_trajectories([tmp_path]).roots[0].trajectory is not None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")
def test_fifo_named_directly_is_refused_without_opening(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.json")
    raised: list[BaseException] = []

    def load() -> None:
        try:
            load_trajectories([tmp_path / "pipe.json"], LoadOptions(strict=False))
        except BaseException as exc:  # handed to the test thread
            raised.append(exc)

    worker = threading.Thread(target=load, daemon=True)  # a regression blocks in open(); the test must not
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "loading a FIFO blocked"
    (error,) = raised
    assert isinstance(error, InputError) and error.code == "not_a_file" and "pipe.json" in str(error)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")
def test_fifo_inside_a_directory_is_skipped(tmp_path: Path) -> None:
    write(tmp_path / "ok.json", trajectory())
    os.mkfifo(tmp_path / "pipe.json")
    result = load_trajectories([tmp_path])
    assert len(result.roots) == 1
    assert [(a.path.endswith("pipe.json"), a.status) for a in result.inputs if a.status != "loaded"] == [
        (True, "skipped")
    ]


def test_directory_without_trajectory_files_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "readme.md").write_text("x")
    with pytest.raises(InputError) as info:
        load_trajectories([tmp_path])
    assert info.value.code == "no_inputs" and str(tmp_path) in str(info.value)
