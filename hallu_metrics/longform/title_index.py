"""Title index of a knowledge store, kept in a sidecar file so a user's FActScore database is never modified.

HalluLens' reference looks pages up with ``LIKE '%entity%'`` over every title for every entity (a full scan of
~6M titles). Here a sidecar SQLite file ``<db>.titles.fts.sqlite`` holds, once:

- ``titles(id, title, folded)`` with a B-tree index on the case-folded title, for case-insensitive exact lookup;
- ``titles_fts``, an FTS5 table with the trigram tokenizer (case-insensitive) over the same titles, for
  "titles containing this string" lookups that read an index instead of scanning;
- ``trigram_docs(term, docs)``, how many titles hold each trigram. A substring lookup asks FTS5 only for titles
  holding the query's rarest trigrams (a cheap AND of rowid lists) and checks the substring itself on those
  candidates: an FTS5 phrase query over every trigram of the entity reads all their position lists, which made
  the lookup grow with the store (38.7 ms p95 at 6M titles; see docs/benchmarks.md).

It is built on first use when missing and reused afterwards. A fingerprint of the database (file size and
largest rowid) is stored with it; when the database changes, the index is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from collections.abc import Iterable
from pathlib import Path

from tqdm import tqdm

from hallu_metrics.longform.sqlite_util import ThreadConnections, atomic_sqlite, chunks
from hallubench.core.errors import HallubenchError

INDEX_SUFFIX = ".titles.fts.sqlite"
MIN_SUBSTRING_CHARS = 3  # the trigram tokenizer cannot use its index for shorter strings
RAREST_TRIGRAMS = 3  # trigrams a substring lookup asks FTS5 for (3 was fastest at 500k titles)
_SCHEMA_VERSION = "2"


def fold(title: str) -> str:
    """The case-insensitive key of a title."""
    return title.casefold()


def default_index_path(db_path: Path) -> Path:
    """``<db>.titles.fts.sqlite`` next to the store; for a store in a read-only folder (a shared FActScore database)
    without an index beside it, a file named after the store's path in the ``title_indexes`` folder next to the
    model-call cache (``$HALLUBENCH_CACHE``'s folder)."""
    beside = db_path.with_name(db_path.name + INDEX_SUFFIX)
    if beside.is_file() or os.access(db_path.parent, os.W_OK):
        return beside
    from hallubench.core.backends.cache import default_cache_path

    digest = hashlib.sha256(str(db_path.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return default_cache_path().parent / "title_indexes" / f"{digest}-{db_path.name}{INDEX_SUFFIX}"


def db_fingerprint(documents: sqlite3.Connection, db_path: Path) -> str:
    """Cheap identity of a documents database: file size and largest rowid (no scan)."""
    (max_rowid,) = documents.execute("SELECT max(rowid) FROM documents").fetchone()
    return f"{db_path.stat().st_size}:{max_rowid}"


def _stored_fingerprint(index_path: Path) -> str | None:
    try:
        conn = sqlite3.connect(f"{index_path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None
    if rows.get("schema") != _SCHEMA_VERSION:
        return None
    return rows.get("fingerprint")


def build_title_index(documents: sqlite3.Connection, index_path: Path, fingerprint: str, progress: bool) -> None:
    """Write the sidecar index for every title in ``documents`` (atomically)."""
    (total,) = documents.execute("SELECT max(rowid) FROM documents").fetchone()
    try:
        index_path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_sqlite(index_path, "title index") as out:
            out.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            out.execute("CREATE TABLE titles (id INTEGER PRIMARY KEY, title TEXT NOT NULL, folded TEXT NOT NULL)")
            rows = documents.execute("SELECT title FROM documents ORDER BY rowid")
            bar = tqdm(total=total, desc="indexing titles", unit="title", disable=not progress, file=sys.stderr)
            while batch := rows.fetchmany(50_000):
                titles = [str(title) for (title,) in batch if title is not None]
                out.executemany("INSERT INTO titles (title, folded) VALUES (?, ?)", ((t, fold(t)) for t in titles))
                bar.update(len(batch))
            bar.close()
            out.execute("CREATE INDEX titles_folded ON titles (folded)")
            out.execute(
                "CREATE VIRTUAL TABLE titles_fts USING fts5(title, content='titles', content_rowid='id', "
                "tokenize='trigram case_sensitive 0')"
            )
            out.execute("INSERT INTO titles_fts (titles_fts) VALUES ('rebuild')")
            out.execute("CREATE VIRTUAL TABLE temp.trigram_vocab USING fts5vocab(main, titles_fts, 'row')")
            out.execute("CREATE TABLE trigram_docs (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID")
            out.execute("INSERT INTO trigram_docs SELECT term, doc FROM temp.trigram_vocab")
            out.executemany(
                "INSERT INTO meta VALUES (?, ?)", [("schema", _SCHEMA_VERSION), ("fingerprint", fingerprint)]
            )
    except (OSError, sqlite3.OperationalError) as exc:
        raise HallubenchError(f"cannot write the title index {index_path}: {exc} (its folder must be writable; the "
                              "index of a store in a read-only folder goes to the folder of HALLUBENCH_CACHE)") from exc


class TitleIndex:
    """Read side of the sidecar index; safe to share between threads."""

    def __init__(self, path: Path):
        self.path = path
        self._connections = ThreadConnections(path)

    @classmethod
    def ensure(cls, documents: sqlite3.Connection, db_path: Path, index_path: Path, progress: bool) -> TitleIndex:
        """Open the index at ``index_path``, building it first when missing or stale."""
        fingerprint = db_fingerprint(documents, db_path)
        if not index_path.is_file() or _stored_fingerprint(index_path) != fingerprint:
            build_title_index(documents, index_path, fingerprint, progress)
        return cls(index_path)

    def find(self, names: Iterable[str]) -> list[str]:
        """Titles equal to any of ``names`` ignoring case, grouped in the order of ``names``."""
        keys = list(dict.fromkeys(fold(name) for name in names if name))
        found: dict[str, list[tuple[int, str]]] = {}
        conn = self._connections.get()
        for chunk in chunks(keys):
            marks = ",".join("?" * len(chunk))
            for key, row_id, title in conn.execute(
                f"SELECT folded, id, title FROM titles WHERE folded IN ({marks})", chunk
            ):
                found.setdefault(key, []).append((row_id, title))
        return [title for key in keys for _, title in sorted(found.get(key, []))]

    def containing(self, text: str, limit: int) -> list[str]:
        """Up to ``limit`` titles that contain ``text`` ignoring case, in store order.

        Strings shorter than ``MIN_SUBSTRING_CHARS`` return nothing (the trigram index cannot serve them).
        """
        text = text.strip()
        if len(text) < MIN_SUBSTRING_CHARS or limit <= 0:
            return []
        conn = self._connections.get()
        query = " AND ".join(_fts_phrase(trigram) for trigram in self._rarest_trigrams(conn, text))
        key, found = fold(text), []
        for title, folded in conn.execute(
            "SELECT t.title, t.folded FROM titles_fts JOIN titles AS t ON t.id = titles_fts.rowid "
            "WHERE titles_fts MATCH ? ORDER BY titles_fts.rowid", (query,)
        ):
            if key in folded:
                found.append(title)
                if len(found) == limit:
                    break
        return found

    @staticmethod
    def _rarest_trigrams(conn: sqlite3.Connection, text: str) -> list[str]:
        """The ``RAREST_TRIGRAMS`` 3-character pieces of ``text`` held by the fewest titles. A piece missing from
        the counts (no title holds it, or SQLite folds its case differently) counts as rarest: the FTS5 query
        tokenises each piece itself, so the candidates still include every matching title."""
        pieces = list(dict.fromkeys(text[i : i + 3] for i in range(len(text) - 2)))
        docs: dict[str, int] = {}
        for chunk in chunks([piece.lower() for piece in pieces]):
            marks = ",".join("?" * len(chunk))
            docs.update(conn.execute(f"SELECT term, docs FROM trigram_docs WHERE term IN ({marks})", chunk))
        return sorted(pieces, key=lambda piece: docs.get(piece.lower(), 0))[:RAREST_TRIGRAMS]

    def close(self) -> None:
        self._connections.close()


def _fts_phrase(text: str) -> str:
    """``text`` as one quoted FTS5 phrase."""
    return '"' + text.replace('"', '""') + '"'
