"""Small SQLite helpers shared by the knowledge store, its title index and the embedding cache."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hallubench.core.errors import HallubenchError
from hallubench.core.outputs import (
    SQLITE_APPLICATION_ID,
    hidden_sibling,
    remove_stale_temporaries,
    sqlite_application_id,
)


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


def check_replaceable_store(path: Path, what: str) -> None:
    """Refuse to replace an existing ``path`` that hallubench did not build (its SQLite header lacks hallubench's
    application id): a user's own database is never overwritten, not even with ``--overwrite``."""
    if not (path.exists() or path.is_symlink()):
        return
    if path.is_symlink() or not path.is_file() or sqlite_application_id(path) != SQLITE_APPLICATION_ID:
        raise HallubenchError(f"{what} {path} exists and is not a file hallubench built (no hallubench mark in its "
                              "SQLite header); refusing to replace it: remove it yourself or choose another path")


@contextmanager
def atomic_sqlite(path: Path, what: str) -> Iterator[sqlite3.Connection]:
    """A connection to a temporary file next to ``path`` (marked with hallubench's application id) that replaces
    ``path`` only if the block succeeds; an existing ``path`` hallubench did not build is refused first."""
    check_replaceable_store(path, what)
    remove_stale_temporaries(path)
    tmp = hidden_sibling(path, f"tmp{threading.get_ident()}")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(tmp)
    conn.execute(f"PRAGMA application_id = {SQLITE_APPLICATION_ID}")
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
