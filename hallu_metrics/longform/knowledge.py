"""Wikipedia knowledge store in FActScore's format (HalluLens 3.2.2 evidence source).

FActScore's database, which HalluLens uses as is (``enwiki-20230401.db``), is one SQLite table
``documents(title PRIMARY KEY, text)`` whose ``text`` holds a page's passages joined by ``SEPARATOR``; its
passages are decoded RoBERTa tokens and may carry ``<s>``/``</s>`` markers, which are removed on reading.
``KnowledgeStore`` opens such a file read-only; ``write_store`` writes the same format from (title, text) pairs.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from hallu_metrics.longform.passages import (
    PASSAGE_WORDS,
    Passage,
    cut_passages,
    page_passages,
)
from hallu_metrics.longform.sqlite_util import ThreadConnections, atomic_sqlite, check_replaceable_store
from hallu_metrics.longform.title_index import TitleIndex, default_index_path
from hallubench.core.errors import HallubenchError

SEPARATOR = "####SPECIAL####SEPARATOR####"  # FActScore's SPECIAL_SEPARATOR (factscore/retrieval.py)
STORE_FILENAME = "knowledge.db"  # the file ``hallubench knowledge build --out DIR`` writes inside DIR
_SPECIAL_TOKENS = re.compile(r"</?s>")


def resolve_store_path(path: str | Path) -> Path:
    """A database file as given, or ``DIR/knowledge.db`` for a folder."""
    path = Path(path).expanduser()
    return path / STORE_FILENAME if path.is_dir() else path


class KnowledgeStore:
    """Read-only access to a FActScore-format database; every method is safe to call from worker threads."""

    def __init__(self, path: Path, index_path: Path | None = None, progress: bool = True):
        self.path = path
        self.index_path = index_path or default_index_path(path)
        self._progress = progress
        self._connections = ThreadConnections(path)
        self._index: TitleIndex | None = None
        self._index_lock = threading.Lock()

    @classmethod
    def open(cls, path: str | Path, *, index_path: str | Path | None = None, progress: bool = True) -> KnowledgeStore:
        """Open ``path`` (a ``.db`` file or a folder holding ``knowledge.db``) without modifying it.

        ``index_path`` places the title index elsewhere (default ``<db>.titles.fts.sqlite``, next to the db).
        """
        db_path = resolve_store_path(path)
        if not db_path.is_file():
            raise HallubenchError(f"knowledge store {db_path} not found (build one with: hallubench knowledge build)")
        store = cls(db_path, Path(index_path) if index_path else None, progress)
        try:
            columns = {row[1] for row in store._conn().execute("PRAGMA table_info(documents)")}
        except sqlite3.DatabaseError as exc:
            store.close()
            raise HallubenchError(f"{db_path} is not an SQLite database: {exc}") from exc
        if not {"title", "text"} <= columns:
            store.close()
            raise HallubenchError(f"{db_path} has no FActScore table documents(title, text)")
        if store._conn().execute("SELECT 1 FROM documents LIMIT 1").fetchone() is None:
            store.close()
            raise HallubenchError(f"{db_path} holds no pages: every claim would be unsupported (rebuild it with "
                                  "hallubench knowledge build from a source with pages)")
        return store

    def _conn(self) -> sqlite3.Connection:
        return self._connections.get()

    def _raw(self, title: str) -> str | None:
        row = self._conn().execute("SELECT text FROM documents WHERE title = ?", (title,)).fetchone()
        return None if row is None else str(row[0])

    def __contains__(self, title: str) -> bool:
        return self._conn().execute("SELECT 1 FROM documents WHERE title = ?", (title,)).fetchone() is not None

    def passages(self, title: str) -> list[Passage]:
        """The stored passages of the page with exactly this title ([] when there is none)."""
        raw = self._raw(title)
        if raw is None:
            return []
        return page_passages(title, [_SPECIAL_TOKENS.sub("", part) for part in raw.split(SEPARATOR)])

    def get(self, title: str) -> str | None:
        """The page's text (its passages joined by spaces), or None when no page has exactly this title."""
        if title not in self:
            return None
        return " ".join(passage.text for passage in self.passages(title))

    def title_index(self) -> TitleIndex:
        """The sidecar title index, built on first use (minutes for millions of titles) and reused after."""
        with self._index_lock:
            if self._index is None:
                self._index = TitleIndex.ensure(self._conn(), self.path, self.index_path, self._progress)
            return self._index

    def find_titles(self, names: Iterable[str]) -> list[str]:
        """Titles equal to any of ``names`` ignoring case (several when only case differs)."""
        return self.title_index().find(names)

    def titles_containing(self, text: str, limit: int = 100) -> list[str]:
        """Up to ``limit`` titles containing ``text`` ignoring case, in store order (``[]`` under 3 characters)."""
        return self.title_index().containing(text, limit)

    def close(self) -> None:
        self._connections.close()
        if self._index is not None:
            self._index.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass(frozen=True)
class BuildStats:
    """What ``write_store`` wrote."""

    path: Path
    pages: int
    passages: int
    duplicates: int
    empty: int


def write_store(
    out: str | Path,
    documents: Iterable[tuple[str, str]],
    *,
    total: int | None = None,
    passage_words: int = PASSAGE_WORDS,
    overwrite: bool = False,
    progress: bool = True,
) -> BuildStats:
    """Write (title, text) pages as a FActScore-format database plus its title index, atomically.

    ``out`` is a ``.db`` file or a folder (then ``out/knowledge.db``). Like FActScore, the first page with a
    title wins; pages whose text has no words are skipped.
    """
    path = Path(out).expanduser()
    if path.suffix != ".db":
        path = path / STORE_FILENAME
    if path.exists() and not overwrite:
        raise HallubenchError(f"{path} already exists (pass --overwrite to replace it)")
    for target in (path, default_index_path(path)):
        check_replaceable_store(target, "--out")
    made = [folder for folder in (path.parent, *path.parent.parents) if not folder.exists()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        stats = _write_documents(path, documents, total, passage_words, progress)
    except (OSError, sqlite3.OperationalError) as exc:
        raise HallubenchError(f"cannot write the knowledge store {path}: {exc}") from exc
    finally:
        if not path.exists():  # a failed build (bad source line, full disk) leaves no folder it made behind
            for folder in made:
                with contextlib.suppress(OSError):
                    folder.rmdir()
    default_index_path(path).unlink(missing_ok=True)
    with KnowledgeStore.open(path, progress=progress) as store:
        store.title_index()
    if progress:
        print(f"[hallubench] wrote {stats.pages} pages ({stats.passages} passages) to {path}", file=sys.stderr)
    return stats


def _write_documents(
    path: Path, documents: Iterable[tuple[str, str]], total: int | None, passage_words: int, progress: bool
) -> BuildStats:
    pages = passages = duplicates = empty = 0
    with atomic_sqlite(path, "--out") as conn:
        conn.execute("CREATE TABLE documents (title PRIMARY KEY, text)")  # FActScore's schema, verbatim
        for title, text in tqdm(documents, total=total, desc="writing pages", unit="page", disable=not progress):
            parts = cut_passages(text, passage_words)
            if not title or not parts:
                empty += 1
                continue
            inserted = conn.execute("INSERT OR IGNORE INTO documents VALUES (?, ?)", (title, SEPARATOR.join(parts)))
            if inserted.rowcount:
                pages, passages = pages + 1, passages + len(parts)
            else:
                duplicates += 1
        if not pages:  # raised inside the block: the temporary file is removed, nothing is written
            raise HallubenchError(f"the source gave no page with a title and text ({empty} empty, {duplicates} "
                                  "repeated): a store without pages would make every claim unsupported")
    return BuildStats(path, pages, passages, duplicates, empty)
