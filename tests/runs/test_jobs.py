from __future__ import annotations

import os
import signal

import pytest

from tracegrade.errors import ConfigError
from tracegrade.runs import Shard, interrupts, job_id_for, parse_shard, progress


def test_job_ids_depend_only_on_the_material() -> None:
    assert job_id_for({"a": 1, "b": [2]}) == job_id_for({"b": [2], "a": 1})
    assert job_id_for({"a": 1}) != job_id_for({"a": 2})
    assert job_id_for({"a": 1}, prefix="suite").startswith("suite-")


def test_shards_partition_the_items_stably() -> None:
    items = [f"case-{i}" for i in range(200)]
    shards = [parse_shard(f"{i}/3") for i in range(3)]
    parts = [s.select(items, key=str) for s in shards]
    assert sorted(x for part in parts for x in part) == sorted(items)
    assert all(parts) and parts[1] == Shard(1, 3).select(items, key=str)


@pytest.mark.parametrize("text", ["3/3", "a/b", "-1/2", "1/0"])
def test_bad_shards_are_refused(text: str) -> None:
    with pytest.raises(ConfigError, match="shard"):
        parse_shard(text)


def test_sigterm_is_handled_like_ctrl_c_inside_and_restored_after() -> None:
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), interrupts():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.sigtimedwait([], 0.1) if hasattr(signal, "sigtimedwait") else None
    assert signal.getsignal(signal.SIGTERM) == previous


def test_progress_draws_nothing_off_a_terminal() -> None:
    with progress(3, "work") as advance:
        advance(1)
        advance(2)
