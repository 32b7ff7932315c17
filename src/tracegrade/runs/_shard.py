"""Deterministic sharding of units of work (root trajectories, cases, tasks) across jobs."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tracegrade.errors import ConfigError

__all__ = ["Shard", "parse_shard"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` (0-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, key: str) -> bool:
        """Whether the unit with this id belongs to this shard (stable across runs and machines)."""
        digest = hashlib.sha256(key.encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index

    def select(self, items: Sequence[T], key: Callable[[T], str]) -> tuple[T, ...]:
        """The items of this shard, in their original order."""
        return tuple(item for item in items if self.owns(key(item)))


def parse_shard(text: str) -> Shard:
    """Parse ``i/n``: shard ``i`` of ``n``, counted from 0 (0 <= i < n).

    Raises:
        ConfigError: when the text is not a valid shard.
    """
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match:
        raise ConfigError(f"shard: expected 'i/n' (e.g. 0/4), got {text!r}")
    index, count = int(match[1]), int(match[2])
    if count < 1:
        raise ConfigError(f"shard: n must be at least 1, got {text!r}")
    if index >= count:
        raise ConfigError(f"shard: shards count from 0, so the {count} shards are 0/{count} to {count - 1}/{count}; "
                          f"got {text!r}")
    return Shard(index, count)
