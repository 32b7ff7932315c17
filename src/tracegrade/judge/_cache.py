"""Content-addressed on-disk cache of validated judge answers (SQLite, safe across processes).

Point lookups and single-row writes take tens of microseconds, so they run synchronously on
the event loop; handing them to a thread would cost more than it saves.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from tracegrade.errors import ConfigError
from tracegrade.judge._context import dumps
from tracegrade.judge._prompts import JudgeRequest
from tracegrade.judge._settings import PROMPT_VERSION

__all__ = ["JudgeCache", "cache_key", "default_cache_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_replies (
    key TEXT PRIMARY KEY,
    purpose TEXT NOT NULL,
    reply BLOB NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$TRACEGRADE_CACHE_DIR/judge.sqlite3``, else ``~/.cache/tracegrade/judge.sqlite3``."""
    env = os.environ if environ is None else environ
    base = env.get("TRACEGRADE_CACHE_DIR")
    directory = Path(base).expanduser() if base else Path.home() / ".cache" / "tracegrade"
    return directory / "judge.sqlite3"


def cache_key(provenance: Mapping[str, Any], request: JudgeRequest) -> str:
    """SHA-256 over the judge provenance, the prompt version and the exact request bytes."""
    digest = hashlib.sha256(dumps(dict(provenance)))
    digest.update(b"\x00" + PROMPT_VERSION.encode() + b"\x00")
    digest.update(request.canonical)
    return digest.hexdigest()


class JudgeCache:
    """Validated judge answers by content key; several processes may share one file.

    Args:
        path: The SQLite file (created with its folder when missing).

    Raises:
        ConfigError: when the file cannot be opened as a cache.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA busy_timeout = 30000")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"judge cache {self.path}: cannot be opened ({type(exc).__name__})",
                              code="cache_unusable") from None

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored reply for ``key``, or None (also for an unreadable row)."""
        row = self._db.execute("SELECT reply FROM judge_replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            value = orjson.loads(row[0])
        except orjson.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, purpose: str, reply: dict[str, Any]) -> None:
        """Store (or replace) the validated reply for ``key`` in one short transaction."""
        self._db.execute(
            "INSERT OR REPLACE INTO judge_replies (key, purpose, reply, created) VALUES (?, ?, ?, ?)",
            (key, purpose, dumps(reply), time.time()),
        )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM judge_replies").fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        self._db.close()
