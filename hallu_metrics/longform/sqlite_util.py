"""Small SQLite helpers shared by the knowledge store, its title index and the embedding cache."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class ThreadConnections:
    """One read-only connection per thread, so worker threads read in parallel without sharing a cursor."""

    def __init__(self, path: Path):
        self._uri = f"{path.resolve().as_uri()}?mode=ro"
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def get(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self._uri, uri=True, check_same_thread=False)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()


@contextmanager
def atomic_sqlite(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a temporary file next to ``path`` that replaces ``path`` only if the block succeeds."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(tmp)
    conn.execute("PRAGMA journal_mode=OFF")  # the file is discarded on failure, so no journal is needed
    conn.execute("PRAGMA synchronous=OFF")
    try:
        yield conn
        conn.commit()
        conn.close()
        os.replace(tmp, path)
    except BaseException:
        conn.close()
        tmp.unlink(missing_ok=True)
        raise


def chunks(items: list, size: int = 500) -> Iterator[list]:
    """Consecutive slices of at most ``size`` items (SQLite caps the number of bound parameters)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]
