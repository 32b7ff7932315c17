"""Content-addressed on-disk cache of validated judge answers (SQLite, safe across processes).

Each validated answer is committed before :meth:`Judge.ask` returns it, so a process killed with
SIGKILL loses only the calls still in flight. A file locked by another process is waited for a
bounded time, then the run goes on without it, with one warning saying how many answers were not stored.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from tracegrade._cache_root import cache_root
from tracegrade._io import loads_written
from tracegrade.errors import ConfigError
from tracegrade.judge._request import JudgeRequest, dumps

__all__ = ["CacheKeys", "JudgeCache", "cache_key", "default_cache_path"]

logger = logging.getLogger("tracegrade.judge")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_replies (
    key TEXT PRIMARY KEY,
    purpose TEXT NOT NULL,
    reply BLOB NOT NULL,
    created REAL NOT NULL,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0
)
"""
_TOKEN_COLUMNS = ("input_tokens", "output_tokens")
"""What the answer cost when it was bought (added to caches made before they were kept; 0 there)."""
_INSERT = ("INSERT OR REPLACE INTO judge_replies (key, purpose, reply, created, input_tokens, output_tokens) "
           "VALUES (?, ?, ?, ?, ?, ?)")
_RUN_BUSY_MS = 100
"""How long one lookup or commit during the run may wait for another process's lock."""
_RETRY_SECONDS = 1.0
"""Seconds between lookups or commits while another process holds the lock."""


def default_cache_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$TRACEGRADE_CACHE_DIR/judge.sqlite3``, else ``~/.cache/tracegrade/judge.sqlite3``."""
    return cache_root(environ) / "judge.sqlite3"


def cache_key(provenance: Mapping[str, Any], request: JudgeRequest) -> str:
    """SHA-256 over the judge provenance, the prompt version and the exact request bytes."""
    return CacheKeys(provenance).key(request)


class CacheKeys:
    """:func:`cache_key` for one provenance, whose bytes are hashed once instead of on every call."""

    __slots__ = ("_base",)

    def __init__(self, provenance: Mapping[str, Any]) -> None:
        self._base = hashlib.sha256(dumps(dict(provenance)))

    def key(self, request: JudgeRequest) -> str:
        """The cache key of ``request`` (equal to ``cache_key(provenance, request)``)."""
        digest = self._base.copy()
        digest.update(b"\x00" + request.prompt_version.encode() + b"\x00")
        digest.update(request.canonical)
        return digest.hexdigest()


class JudgeCache:
    """Validated judge answers by content key; several processes may share one file.

    Every :meth:`put` commits at once. When another process holds the file's lock, a lookup is a miss
    and the row stays pending (a lookup sees it) until a later commit; :meth:`flush` and :meth:`close`
    wait up to ``lock_wait`` seconds, then give up on the rows still pending (counted in
    :attr:`unsaved`, with a warning). A file that stays locked for ``lock_wait`` seconds at opening is
    not used at all.

    Args:
        path: The SQLite file (created with its folder when missing).
        lock_wait: Most seconds to wait for another process's lock at opening and at flush.

    Raises:
        ConfigError: when the file cannot be opened as a cache (not a database, no permission).
    """

    def __init__(self, path: str | os.PathLike[str], *, lock_wait: float = 10.0) -> None:
        self.path = Path(path).expanduser()
        self._lock_wait = lock_wait
        self._pending: dict[str, tuple[str, bytes, float, int, int]] = {}
        self._next_write = 0.0
        self._next_read = 0.0
        self._warned = False
        self._problem = "the cache is not open"
        self.unsaved = 0
        """Validated answers that could not be stored (the file stayed locked)."""
        self._db = self._open()

    def _open(self) -> sqlite3.Connection | None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=0.0, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise self._unusable(exc) from None
        deadline = time.monotonic() + self._lock_wait
        while True:
            try:
                _prepare(db)
                return db
            except sqlite3.OperationalError as exc:
                if not _is_lock(exc):
                    db.close()
                    raise self._unusable(exc) from None
            except sqlite3.Error as exc:
                db.close()
                raise self._unusable(exc) from None
            if time.monotonic() >= deadline:
                db.close()
                logger.warning("judge cache %s is locked by another process; this run goes on without it",
                               self.path)
                return None
            time.sleep(0.05)

    def _unusable(self, exc: BaseException) -> ConfigError:
        return ConfigError(f"judge cache {self.path}: cannot be opened ({type(exc).__name__})",
                           code="cache_unusable")

    def get_with_tokens(self, key: str) -> tuple[dict[str, Any], int, int] | None:
        """The stored reply for ``key`` and the input and output tokens it cost; None also when unreadable or locked."""
        pending = self._pending.get(key)
        row = (pending[1], pending[3], pending[4]) if pending else self._select(key)
        if row is None:
            return None
        try:
            value = loads_written(row[0])
        except orjson.JSONDecodeError:
            return None
        return (value, int(row[1] or 0), int(row[2] or 0)) if isinstance(value, dict) else None

    def _select(self, key: str) -> tuple[bytes, int, int] | None:
        if self._db is None or time.monotonic() < self._next_read:
            return None
        try:
            row: tuple[bytes, int, int] | None = self._db.execute(
                "SELECT reply, input_tokens, output_tokens FROM judge_replies WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            self._next_read = time.monotonic() + _RETRY_SECONDS
            self._note_problem(exc)
            return None
        return row

    def put(self, key: str, purpose: str, reply: dict[str, Any], tokens: tuple[int, int] = (0, 0)) -> None:
        """Store (or replace) the validated reply for ``key`` with the (input, output) tokens it cost."""
        self._pending[key] = (purpose, dumps(reply), time.time(), *tokens)
        self._commit()

    def flush(self) -> None:
        """Commit the pending rows, waiting up to ``lock_wait`` seconds for another process's lock.

        Rows still pending after that are given up (counted in :attr:`unsaved`, with a warning);
        this never raises for a locked file.
        """
        deadline = time.monotonic() + self._lock_wait
        self._next_write = 0.0
        while self._pending and self._db is not None and not self._commit():
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
            self._next_write = 0.0
        if self._pending:
            self.unsaved += len(self._pending)
            logger.warning("judge cache %s: %d validated answer(s) could not be stored (%s); the results are "
                           "complete, a rerun asks the judge for them again", self.path, len(self._pending),
                           self._problem)
            self._pending.clear()

    def _commit(self) -> bool:
        """Write the pending rows in one transaction; False (rows kept) when the file is locked."""
        if not self._pending:
            return True
        if self._db is None or time.monotonic() < self._next_write:
            return False
        rows = [(key, *row) for key, row in self._pending.items()]
        try:
            if len(rows) == 1:  # one statement is its own transaction (autocommit): a third of the work
                self._db.execute(_INSERT, rows[0])
            else:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany(_INSERT, rows)
                self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(self._db)
            self._next_write = time.monotonic() + _RETRY_SECONDS
            self._note_problem(exc)
            return False
        self._pending.clear()
        return True

    def _note_problem(self, exc: sqlite3.Error) -> None:
        # the caller sets when to try again (reads and writes back off separately)
        self._problem = str(exc)  # SQLite's own words ("database is locked"): no judge content, no secrets
        if not self._warned:
            self._warned = True
            logger.warning("judge cache %s: %s; retrying while the run goes on", self.path, self._problem)

    def __len__(self) -> int:
        self.flush()
        if self._db is None:
            return 0
        return int(self._db.execute("SELECT COUNT(*) FROM judge_replies").fetchone()[0])

    def close(self) -> None:
        """Commit pending rows (see :meth:`flush`) and close the connection."""
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None


def _prepare(db: sqlite3.Connection) -> None:
    db.execute(f"PRAGMA busy_timeout = {_RUN_BUSY_MS}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute(_SCHEMA)
    columns = {row[1] for row in db.execute("PRAGMA table_info(judge_replies)")}
    for column in _TOKEN_COLUMNS:
        if column not in columns:
            db.execute(f"ALTER TABLE judge_replies ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")


def _rollback(db: sqlite3.Connection) -> None:
    try:
        if db.in_transaction:
            db.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # SQLite rolls back a failed transaction itself when the connection is next used or closed


def _is_lock(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text
