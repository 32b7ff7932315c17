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
from tracegrade.judge._request import JudgeRequest, dumps

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
    digest.update(b"\x00" + request.prompt_version.encode() + b"\x00")
    digest.update(request.canonical)
    return digest.hexdigest()


class JudgeCache:
    """Validated judge answers by content key; several processes may share one file.

    Writes are buffered and committed together (at most ``batch`` rows or ``max_delay`` seconds
    old), each batch one short ``INSERT OR REPLACE`` transaction; :meth:`flush` and :meth:`close`
    commit what is pending. A lookup sees this process's pending rows too.

    Args:
        path: The SQLite file (created with its folder when missing).
        batch: Most pending rows before a commit.
        max_delay: Most seconds a row stays pending (checked at the next write).

    Raises:
        ConfigError: when the file cannot be opened as a cache.
    """

    def __init__(self, path: str | os.PathLike[str], *, batch: int = 64, max_delay: float = 1.0) -> None:
        self.path = Path(path).expanduser()
        self._batch = batch
        self._max_delay = max_delay
        self._pending: dict[str, tuple[str, bytes, float]] = {}
        self._oldest = 0.0
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
        pending = self._pending.get(key)
        row = (pending[1],) if pending else self._db.execute(
            "SELECT reply FROM judge_replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            value = orjson.loads(row[0])
        except orjson.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, purpose: str, reply: dict[str, Any]) -> None:
        """Store (or replace) the validated reply for ``key``."""
        now = time.time()
        if not self._pending:
            self._oldest = now
        self._pending[key] = (purpose, dumps(reply), now)
        if len(self._pending) >= self._batch or now - self._oldest >= self._max_delay:
            self.flush()

    def flush(self) -> None:
        """Commit the pending rows in one transaction."""
        if not self._pending:
            return
        rows = [(key, purpose, reply, created) for key, (purpose, reply, created) in self._pending.items()]
        self._pending.clear()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT OR REPLACE INTO judge_replies (key, purpose, reply, created) VALUES (?, ?, ?, ?)", rows)

    def __len__(self) -> int:
        self.flush()
        return int(self._db.execute("SELECT COUNT(*) FROM judge_replies").fetchone()[0])

    def close(self) -> None:
        """Commit pending rows and close the connection."""
        self.flush()
        self._db.close()
