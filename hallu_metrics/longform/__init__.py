"""Shared evidence layer for long-form factuality (LongWiki, WildHallucinations): a FActScore-format
Wikipedia store with a title index, passage cutting, embedding/BM25 passage ranking with a persistent
embedding cache, candidate pages from named entities, and sentence snippets for claim extraction."""

from hallu_metrics.longform.candidates import candidate_titles, spans_covering
from hallu_metrics.longform.embeddings import (
    OFFLINE_MODEL,
    OFFLINE_SPEC,
    Embedder,
    EmbeddingCache,
    default_embedding_cache_path,
    embedder_from_spec,
    offline_embedder,
    sentence_transformer_embedder,
)
from hallu_metrics.longform.entities import NER, SpacyNER
from hallu_metrics.longform.knowledge import (
    SEPARATOR,
    BuildStats,
    KnowledgeStore,
    write_store,
)
from hallu_metrics.longform.passages import PASSAGE_WORDS, Passage, cut_passages
from hallu_metrics.longform.retrieval import TOP_K, Retriever, query
from hallu_metrics.longform.sentences import Snippet, snippets, split_sentences

__all__ = [
    "NER",
    "OFFLINE_MODEL",
    "OFFLINE_SPEC",
    "PASSAGE_WORDS",
    "SEPARATOR",
    "TOP_K",
    "BuildStats",
    "Embedder",
    "EmbeddingCache",
    "KnowledgeStore",
    "Passage",
    "Retriever",
    "Snippet",
    "SpacyNER",
    "candidate_titles",
    "cut_passages",
    "default_embedding_cache_path",
    "embedder_from_spec",
    "offline_embedder",
    "query",
    "sentence_transformer_embedder",
    "snippets",
    "spans_covering",
    "split_sentences",
    "write_store",
]
