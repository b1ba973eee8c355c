"""LongWiki's evidence: one knowledge store, retriever and NER model per process, shared by every item."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hallu_metrics.benchmarks.longwiki.options import evidence_settings
from hallu_metrics.longform.candidates import candidate_titles
from hallu_metrics.longform.entities import NER, SpacyNER
from hallu_metrics.longform.knowledge import KnowledgeStore
from hallu_metrics.longform.passages import Passage
from hallu_metrics.longform.retrieval import Retriever, query


@dataclass(frozen=True)
class Evidence:
    """Candidate pages from the question's named entities, then the top passages for a claim (section 3.2.2)."""

    store: KnowledgeStore
    retriever: Retriever
    ner: NER

    def passages(self, question: str, claim: str, title: str) -> list[Passage]:
        titles = candidate_titles(self.store, question, claim, title, self.ner)
        return self.retriever.retrieve(claim, titles, topic=title)

    async def prepare(self, title: str, claims: list[str]) -> None:
        """Embed a response's retrieval queries ahead of ranking, batched with other responses' queries
        (``Retriever.prepare_queries``), so that no claim runs the embedding model alone."""
        await self.retriever.prepare_queries([query(title, claim) for claim in claims])


_OPENED: dict[tuple[str, str, str], Evidence] = {}
_OPEN_LOCK = threading.Lock()


def open_evidence(settings: Mapping[str, Any]) -> Evidence:
    """The process's evidence for these settings, opened on first use (store, title index, embedder, NER)."""
    key = evidence_settings(settings)
    with _OPEN_LOCK:
        if key not in _OPENED:
            from hallu_metrics.longform.embeddings import embedder_from_spec

            knowledge, embedder, method = key
            store = KnowledgeStore.open(knowledge, progress=False)
            model = embedder_from_spec(embedder) if method == "embedding" else None
            _OPENED[key] = Evidence(store, Retriever(store, model, method=method), SpacyNER())
        return _OPENED[key]
