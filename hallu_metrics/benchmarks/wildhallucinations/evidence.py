"""WildHallucinations' evidence (section 2.3): the entity's own knowledge pages, cut into passages, and the top
passages per atomic fact; how facts are checked comes from the run's settings."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hallu_metrics.longform.embeddings import OFFLINE_SPEC, embedder_from_spec
from hallu_metrics.longform.passages import Passage, cut_passages, page_passages
from hallu_metrics.longform.retrieval import METHODS, TOP_K, Retriever, query
from hallu_metrics.settings import option
from hallubench.core.errors import HallubenchError

# --- the entity's knowledge source -------------------------------------------------------------------------

def readable(text: str) -> str:
    """``text`` with anything that is not valid UTF-8 (lone surrogates from a bad decode) replaced."""
    return text.encode("utf-8", "replace").decode("utf-8")


def entity_pages(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(url, text) of the entity's knowledge pages: ``info`` entries with status 200 and some text."""
    return [
        (str(page.get("url") or ""), readable(page["text"]))
        for page in doc.get("info") or []
        if page.get("status_code") == 200 and isinstance(page.get("text"), str) and page["text"].strip()
    ]


# --- evidence settings and retrieval ------------------------------------------------------------------------

@dataclass(frozen=True)
class EvidenceSettings:
    """How facts are checked; from the run's settings (lm-eval ``--metadata``) or ``$HALLUBENCH_<KEY>``:
    ``retrieval`` (embedding | bm25), ``embedder`` (``minilm`` or a sentence-transformers id), ``top_k``
    (passages per fact) and ``refusal_check`` (also ask the judge the ``knowledgeable`` check: a response that is
    not knowledgeable declines)."""

    retrieval: str = "embedding"
    embedder: str = OFFLINE_SPEC
    top_k: int = TOP_K
    refusal_check: bool = False

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> EvidenceSettings:
        def value(key: str, default: Any) -> Any:
            return option(settings, key, "wildhallucinations", default)

        retrieval = str(value("retrieval", cls.retrieval))
        if retrieval not in METHODS:
            raise HallubenchError(f"retrieval must be one of {', '.join(METHODS)}, not {retrieval!r}")
        try:
            top_k = int(value("top_k", cls.top_k))
        except ValueError as exc:
            raise HallubenchError(f"top_k must be a whole number: {exc}") from exc
        refusal = str(value("refusal_check", "false")).strip().lower()
        if refusal not in ("true", "false", "1", "0", "yes", "no"):
            raise HallubenchError(f"refusal_check must be true or false, not {refusal!r}")
        return cls(retrieval, str(value("embedder", cls.embedder)), top_k, refusal in ("true", "1", "yes"))


_RETRIEVERS: dict[tuple[str, str, int], Retriever] = {}
_RETRIEVERS_LOCK = threading.Lock()


def retriever_for(settings: EvidenceSettings) -> Retriever:
    """One retriever (and embedding model) per process and setting, shared by all items."""
    key = (settings.retrieval, settings.embedder, settings.top_k)
    with _RETRIEVERS_LOCK:
        if key not in _RETRIEVERS:
            embedder = embedder_from_spec(settings.embedder) if settings.retrieval == "embedding" else None
            _RETRIEVERS[key] = Retriever(None, embedder, top_k=settings.top_k, method=settings.retrieval)
        return _RETRIEVERS[key]


def page_passages_of(doc: Mapping[str, Any], words: int) -> list[Passage]:
    """Every passage of the entity's own pages (each page cut into windows of ``words`` words, titled by URL)."""
    return [passage for url, text in entity_pages(doc) for passage in page_passages(url, cut_passages(text, words))]


def top_passages(retriever: Retriever, entity: str, facts: Sequence[str], passages: Sequence[Passage]
                 ) -> list[list[Passage]]:
    """The top passages for each fact, query = entity + fact (FActScore's topic + atomic fact); with embedding
    ranking, ``Retriever.prepare_queries`` embeds the queries first."""
    return [retriever.rank(query(entity, fact), passages) for fact in facts]
