"""Persistent SQLite cache of model calls: every finished call is committed at once, so a run
that crashes or is killed loses nothing and a re-run makes no repeat calls.

Processes may share one cache file (SQLite locking keeps it consistent), but only *finished* calls
are shared: two runs started together each send the calls the other has not finished yet.
A cache file that is not a readable SQLite database, or a place where none can be created, is a
one-line ``HallubenchError`` naming the path (never a traceback, never a silent reset).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from hallubench.core.backends.base import Usage
from hallubench.core.errors import HallubenchError, sqlite_errors


def default_cache_path() -> Path:
    """``$HALLUBENCH_CACHE`` or ``~/.cache/hallubench/calls.sqlite``."""
    env = os.environ.get("HALLUBENCH_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hallubench" / "calls.sqlite"


def _stored(text: str) -> str | bytes:
    """Text as SQLite can hold it: a response with lone surrogates (not valid UTF-8) is kept exactly,
    as its ``surrogatepass`` bytes."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _loaded(value: str | bytes) -> str:
    return value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else value


class CallCache:
    """Key -> response text and the call's token usage, in WAL mode; safe to share between threads and processes."""

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else default_cache_path()
        self._lock = threading.Lock()
        with self._errors("open"):
            if self.path.is_dir():
                raise HallubenchError(f"cache {self.path} is a folder, not a cache file; pass another --cache")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=60)
        try:
            with self._errors("open"), self._lock:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a killed process loses no commit
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, backend TEXT, response TEXT NOT NULL, "
                    "usage TEXT)"
                )
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(calls)")}
                if "usage" not in columns:  # a cache written before usage was recorded: its entries stay, usage NULL
                    self._db.execute("ALTER TABLE calls ADD COLUMN usage TEXT")
                self._db.commit()
        except HallubenchError:
            self._db.close()  # removes the -wal/-shm files this attempt created
            raise

    def _errors(self, action: str) -> AbstractContextManager[None]:
        return sqlite_errors(f"cannot {action} cache {self.path}", "delete or move it, or pass another --cache")

    def get_many(self, keys: list[str]) -> dict[str, str]:
        return {key: text for key, (text, _) in self.entries(keys).items()}

    def entries(self, keys: list[str]) -> dict[str, tuple[str, Usage | None]]:
        """Key -> (response, usage of the call that made it; None for entries stored before usage was recorded)."""
        found: dict[str, tuple[str, Usage | None]] = {}
        with self._errors("read"), self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(f"SELECT key, response, usage FROM calls WHERE key IN ({marks})", chunk)
                found.update((key, (_loaded(value), Usage.from_json(usage))) for key, value, usage in rows.fetchall())
        return found

    def put(self, key: str, backend: str, response: str, usage: Usage | None = None) -> None:
        with self._errors("write"), self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO calls (key, backend, response, usage) VALUES (?, ?, ?, ?)",
                (key, backend, _stored(response), usage.to_json() if usage is not None else None),
            )
            self._db.commit()

    def put_many(self, entries: Sequence[tuple[str, str, str, Usage | None]]) -> None:
        """(key, backend, response, usage) entries in one commit (a Batch API batch's lines)."""
        with self._errors("write"), self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO calls (key, backend, response, usage) VALUES (?, ?, ?, ?)",
                [(key, backend, _stored(response), usage.to_json() if usage is not None else None)
                 for key, backend, response, usage in entries],
            )
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()
