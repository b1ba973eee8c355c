"""Top-k evidence passages for a claim (HalluLens 3.2.2 "Reference Evidence Selection").

The query is ``topic + " " + claim`` (topic = the page the question was generated from, or the entity for
WildHallucinations); each candidate passage is represented as ``title + " " + passage``. With
``method="embedding"`` passages are ranked by cosine similarity of their embeddings (the paper's method);
with ``method="bm25"`` by BM25 over the passage text as FActScore's BM25 option does (bm25s with its
default Lucene IDF, lower-cased words, English stop words removed). Ties keep passage order. The top 5 are
kept by default, as in the paper.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterable, Sequence

import numpy as np

from hallu_metrics.longform.embeddings import (
    Embedder,
    EmbeddingCache,
    default_embedding_cache_path,
    offline_embedder,
)
from hallu_metrics.longform.knowledge import KnowledgeStore
from hallu_metrics.longform.passages import (
    PASSAGE_WORDS,
    Passage,
    cut_passages,
    page_passages,
)
from hallubench.core.backends.aio import MicroBatcher
from hallubench.core.errors import HallubenchError

TOP_K = 5
METHODS = ("embedding", "bm25")
BM25_INDEXES = 64  # BM25 indexes of recent candidate sets kept in memory
QUERY_BATCH = 512  # retrieval queries embedded in one model call at most
BM25_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # bm25s.tokenize's default token pattern


class Retriever:
    """Rank a claim's candidate passages; thread-safe (store, cache and embedder are)."""

    def __init__(
        self,
        store: KnowledgeStore | None,
        embedder: Embedder | None = None,
        *,
        top_k: int = TOP_K,
        method: str = "embedding",
        cache: EmbeddingCache | None = None,
        passage_words: int = PASSAGE_WORDS,
    ):
        """``embedder`` defaults to the offline MiniLM and ``cache`` to ``default_embedding_cache_path()``
        (both only for ``method="embedding"``); ``store`` may be None when only documents are ranked."""
        if method not in METHODS:
            raise HallubenchError(f"unknown retrieval method {method!r} (expected one of {', '.join(METHODS)})")
        if top_k < 1:
            raise HallubenchError("top_k must be at least 1")
        self.store = store
        self.top_k = top_k
        self.method = method
        self.passage_words = passage_words
        if method == "embedding":
            embedder = embedder if embedder is not None else offline_embedder()
            cache = cache if cache is not None else EmbeddingCache(default_embedding_cache_path())
        self.embedder = embedder
        self.cache = cache
        self._lock = threading.Lock()
        self._bm25_indexes: dict[tuple, object] = {}
        self._queries = MicroBatcher(self._embed_queries, max_batch=QUERY_BATCH)

    async def prepare_queries(self, queries: Sequence[str]) -> None:
        """Embed retrieval queries ahead of their ranking (embedding method; nothing to do for BM25), so that
        ranking finds their vectors cached. Queries that items submit while the model is busy are embedded
        together in the next batch: one model call for many items' claims instead of one per item, which keeps
        the model's share of the interpreter lock small when it runs beside many judge calls."""
        if self.method == "embedding" and queries:
            await asyncio.gather(*(self._queries.submit(text) for text in queries))

    def _embed_queries(self, texts: Sequence[str]) -> list[None]:
        self.cache.embed(self.embedder, texts)
        return [None] * len(texts)

    def candidate_passages(self, titles: Iterable[str]) -> list[Passage]:
        """All stored passages of the pages with these exact titles (missing titles are skipped)."""
        if self.store is None:
            raise HallubenchError("this retriever has no knowledge store; use retrieve_from_documents")
        return [passage for title in dict.fromkeys(titles) for passage in self.store.passages(title)]

    def retrieve(self, claim: str, titles: Sequence[str], topic: str | None = None) -> list[Passage]:
        """Top-k passages for ``claim`` from the store pages ``titles``; ``topic`` defaults to ``titles[0]``
        (``candidate_titles`` puts the source page first)."""
        if topic is None:
            topic = titles[0] if titles else ""
        return self.rank(query(topic, claim), self.candidate_passages(titles))

    def retrieve_from_documents(self, claim: str, documents: Iterable[tuple[str, str]], topic: str) -> list[Passage]:
        """Top-k passages for ``claim`` from (title or url, text) documents outside any store (WildHallucinations'
        per-entity web pages), cut into passages the same way ``hallubench knowledge build`` cuts pages."""
        passages = [
            passage
            for title, text in documents
            for passage in page_passages(title, cut_passages(text, self.passage_words))
        ]
        return self.rank(query(topic, claim), passages)

    def rank(self, query_text: str, passages: Sequence[Passage]) -> list[Passage]:
        """The ``top_k`` passages most similar to ``query_text``, best first."""
        if not passages:
            return []
        score = self._bm25_scores if self.method == "bm25" else self._cosine
        scores = score(query_text, passages)
        order = np.argsort(-scores, kind="stable")[: self.top_k]
        return [passages[i] for i in order]

    def _cosine(self, query_text: str, passages: Sequence[Passage]) -> np.ndarray:
        vectors = self.cache.embed(self.embedder, [passage.embedding_input() for passage in passages])
        (query_vector,) = self.cache.embed(self.embedder, [query_text])
        return _unit(vectors) @ _unit(query_vector[None, :])[0]

    def _bm25_scores(self, query_text: str, passages: Sequence[Passage]) -> np.ndarray:
        index = self._bm25_index(passages)
        return np.asarray(index.get_scores(bm25_query_tokens(query_text)), dtype=np.float64)

    def _bm25_index(self, passages: Sequence[Passage]):
        """The BM25 index of a candidate set, built once and reused for every claim ranked over the same
        passages (an entity's facts, a response's claims); the last ``BM25_INDEXES`` sets are kept."""
        import bm25s

        key = tuple((passage.title, passage.index, len(passage.text)) for passage in passages)
        with self._lock:
            index = self._bm25_indexes.pop(key, None)
        if index is None:
            index = bm25s.BM25()
            corpus = bm25s.tokenize([passage.text for passage in passages], stopwords="en", show_progress=False)
            index.index(corpus, show_progress=False)
        with self._lock:
            self._bm25_indexes[key] = index  # most recently used last
            while len(self._bm25_indexes) > BM25_INDEXES:
                self._bm25_indexes.pop(next(iter(self._bm25_indexes)))
        return index


def bm25_query_tokens(text: str) -> list[str]:
    """``bm25s.tokenize([text], stopwords="en", return_ids=False)[0]``, without the two progress-bar objects that
    call makes each time (they take tqdm's process-wide lock, which every ranked claim would contend for)."""
    from bm25s.stopwords import STOPWORDS_EN

    return [word for word in BM25_TOKEN.findall(text.lower()) if word not in STOPWORDS_EN]


def query(topic: str, claim: str) -> str:
    """The retrieval query: topic + claim (HalluLens 3.2.2)."""
    return f"{topic} {claim.strip()}".strip()


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
