from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tracegrade.errors import ConfigError
from tracegrade.runs import Shard, parse_shard


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


def test_a_shard_past_the_last_says_that_shards_count_from_zero() -> None:
    with pytest.raises(ConfigError, match=r"count from 0, so the 2 shards are 0/2 to 1/2; got '2/2'"):
        parse_shard("2/2")


def test_a_shard_reads_with_spaces_and_prints_as_i_over_n() -> None:
    assert parse_shard(" 2 / 5 ") == Shard(2, 5)
    assert str(Shard(2, 5)) == "2/5"


def test_a_shard_keeps_its_items_in_their_original_order() -> None:
    items = [f"case-{i}" for i in range(50)]
    selected = Shard(0, 2).select(items, key=str)
    assert list(selected) == [item for item in items if item in selected]


def test_another_process_assigns_every_item_to_the_same_shard() -> None:
    keys = [f"trajectory-{i}.json" for i in range(40)]
    here = [Shard(0, 3).owns(key) for key in keys]
    script = f"from tracegrade.runs import Shard; print([Shard(0, 3).owns(k) for k in {keys!r}])"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}  # str hashes differ between processes; shards must not
    there = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert there.stdout.strip() == str(here)
