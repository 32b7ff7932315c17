"""Deterministic sharding of root trajectories across jobs."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tracegrade.atif import TrajectoryNode
from tracegrade.errors import ConfigError

__all__ = ["Shard", "parse_shard"]


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` (0-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, node_id: str) -> bool:
        """Whether the root with this id belongs to this shard (stable across runs and machines)."""
        digest = hashlib.sha256(node_id.encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index

    def select(self, roots: Sequence[TrajectoryNode]) -> tuple[TrajectoryNode, ...]:
        """The roots of this shard, in their original order."""
        return tuple(r for r in roots if self.owns(r.node_id))


def parse_shard(text: str) -> Shard:
    """Parse ``i/n`` (0 <= i < n).

    Raises:
        ConfigError: when the text is not a valid shard.
    """
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match:
        raise ConfigError(f"shard: expected 'i/n' (e.g. 0/4), got {text!r}")
    index, count = int(match[1]), int(match[2])
    if count < 1 or not 0 <= index < count:
        raise ConfigError(f"shard: need 0 <= i < n, got {text!r}")
    return Shard(index, count)
