"""Persistent SQLite cache of web searches and page fetches. Every finished search or fetch (an error
included) is committed at once, so a killed run resumes where it stopped and a re-run with the cache
reproduces the same knowledge source without touching the network."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from hallubench.core.backends.cache import default_cache_path


def default_web_cache_path() -> Path:
    """``web.sqlite`` beside the model-call cache (``$HALLUBENCH_CACHE`` or ~/.cache/hallubench)."""
    return default_cache_path().parent / "web.sqlite"


@dataclass(frozen=True)
class Page:
    """One fetched URL. ``reason`` is ``ok`` or why the fetch gave no usable text; ``status_code`` is 0
    when no HTTP response arrived; ``fetched_at`` is an ISO UTC timestamp."""

    url: str
    status_code: int
    reason: str
    text: str
    fetched_at: str


class WebCache:
    """Tables ``pages`` (keyed by URL) and ``searches`` (keyed by backend + query), in WAL mode."""

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else default_web_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=60)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS pages (url TEXT PRIMARY KEY, status_code INTEGER NOT NULL, "
                "reason TEXT NOT NULL, text TEXT NOT NULL, fetched_at TEXT NOT NULL)"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS searches (backend TEXT NOT NULL, query TEXT NOT NULL, "
                "urls TEXT NOT NULL, PRIMARY KEY (backend, query))"
            )
            self._db.commit()

    def pages(self, urls: list[str]) -> dict[str, Page]:
        found: dict[str, Page] = {}
        with self._lock:
            for start in range(0, len(urls), 500):
                chunk = urls[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT url, status_code, reason, text, fetched_at FROM pages WHERE url IN ({marks})", chunk
                )
                found.update((row[0], Page(*row)) for row in rows)
        return found

    def put_page(self, page: Page) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?)",
                (page.url, page.status_code, page.reason, page.text, page.fetched_at),
            )
            self._db.commit()

    def search(self, backend: str, query: str) -> list[str] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT urls FROM searches WHERE backend = ? AND query = ?", (backend, query)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def put_search(self, backend: str, query: str, urls: list[str]) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO searches VALUES (?, ?, ?)", (backend, query, json.dumps(urls)))
            self._db.commit()
