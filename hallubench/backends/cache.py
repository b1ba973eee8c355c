"""Persistent SQLite cache of model calls: every finished call is committed at once, so a run
that crashes or is killed loses nothing and a re-run makes no repeat calls."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path


def default_cache_path() -> Path:
    """``$HALLUBENCH_CACHE`` or ``~/.cache/hallubench/calls.sqlite``."""
    env = os.environ.get("HALLUBENCH_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hallubench" / "calls.sqlite"


class CallCache:
    """Key -> response text, in WAL mode; safe to share between threads."""

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=60)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a killed process loses no commit
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, backend TEXT, response TEXT NOT NULL)"
            )
            self._db.commit()

    def get_many(self, keys: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(f"SELECT key, response FROM calls WHERE key IN ({marks})", chunk)
                found.update(rows.fetchall())
        return found

    def put(self, key: str, backend: str, response: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO calls (key, backend, response) VALUES (?, ?, ?)", (key, backend, response)
            )
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()
