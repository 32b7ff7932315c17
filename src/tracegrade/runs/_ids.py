"""Deterministic job ids: the same inputs and parameters give the same id (shards of one job agree)."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

__all__ = ["job_id_for"]


def job_id_for(material: Any, *, prefix: str = "tg") -> str:
    """A short stable id from JSON-serialisable ``material`` (key order does not matter)."""
    digest = hashlib.sha256(orjson.dumps(material, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"{prefix}-{digest[:12]}"
