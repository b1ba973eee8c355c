"""Evidence retrieval for long-form claims: embedding and BM25 ranking on a tiny store, the persistent and
memory-bounded embedding cache, ranking of outside documents, candidate pages from question entities, thread
safety, and the real offline MiniLM / spaCy models."""

import re
import threading
import zlib

import numpy as np
import pytest

from hallu_metrics.longform import (
    Embedder,
    EmbeddingCache,
    KnowledgeStore,
    Retriever,
    SpacyNER,
    candidate_titles,
    offline_embedder,
    spans_covering,
    write_store,
)
from hallubench.core.errors import HallubenchError

# Every passage is exactly 8 words, so a store built with passage_words=8 keeps them apart.
PAGES = {
    "Marie Curie": [
        "Marie Curie was born in Warsaw in 1867.",
        "She won the Nobel Prize in Physics 1903.",
        "She later won the Nobel Prize in Chemistry.",
        "Curie died of aplastic anemia in July 1934.",
    ],
    "Pierre Curie": [
        "Pierre Curie was a French physicist and husband.",
        "Pierre died in a Paris street accident 1906.",
    ],
    "Warsaw": ["Warsaw is the capital city of modern Poland."],
}
TITLES = list(PAGES)


def bag_of_words(texts: list[str]) -> np.ndarray:
    """Deterministic stand-in embedder: lower-cased word counts hashed into 64 buckets."""
    vectors = np.zeros((len(texts), 64), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"\w+", text.lower()):
            vectors[row, zlib.crc32(word.encode()) % 64] += 1
    return vectors


class CountingEmbedder:
    """The stand-in plus a count of texts it was asked to embed."""

    def __init__(self, model_id: str = "test/bag-of-words"):
        self.texts = 0
        self.embedder = Embedder(model_id, self._encode)

    def _encode(self, texts: list[str]) -> np.ndarray:
        self.texts += len(texts)
        return bag_of_words(texts)


@pytest.fixture
def store(knowledge_stores):
    """The session's store of PAGES (read-only; each test makes its own retriever and embedding cache)."""
    return knowledge_stores.open([(t, " ".join(p)) for t, p in PAGES.items()], passage_words=8)


def test_embedding_ranking_puts_the_matching_passage_first(store):
    """Cosine similarity of (topic + claim) against (title + passage) picks the passage about the claim."""
    retriever = Retriever(store, Embedder("test/bow", bag_of_words), cache=EmbeddingCache())
    top = retriever.retrieve("Curie died of anemia in 1934.", TITLES)
    assert (top[0].title, top[0].index) == ("Marie Curie", 3)
    top = retriever.retrieve("Pierre died in a street accident in Paris.", ["Marie Curie", "Pierre Curie"])
    assert (top[0].title, top[0].index) == ("Pierre Curie", 1)


def test_top_k_and_missing_titles(store):
    """Five passages by default, no duplicates, only from the named pages; unknown titles are skipped."""
    retriever = Retriever(store, Embedder("test/bow", bag_of_words), cache=EmbeddingCache())
    top = retriever.retrieve("Nobel Prize", ["Marie Curie", "Atlantis", "Pierre Curie", "Marie Curie"])
    assert len(top) == 5 and len(set(top)) == 5
    assert {p.title for p in top} <= {"Marie Curie", "Pierre Curie"}
    assert Retriever(store, Embedder("test/bow", bag_of_words), top_k=2, cache=EmbeddingCache()).retrieve(
        "Nobel Prize", TITLES
    )[0].index in (1, 2)
    assert retriever.retrieve("anything", ["Atlantis"]) == []


def test_bm25_ranking(store):
    """FActScore's BM25 option: the only passage sharing the rare words of the claim wins."""
    retriever = Retriever(store, method="bm25")
    top = retriever.retrieve("She received the Nobel Prize in Chemistry.", TITLES)
    assert (top[0].title, top[0].index) == ("Marie Curie", 2)
    top = retriever.retrieve("Warsaw is in Poland.", TITLES, topic="Warsaw")
    assert top[0].title == "Warsaw"


def test_bm25_query_tokens_match_bm25s_tokenize():
    """Queries are tokenized without bm25s.tokenize's per-call progress bars, into exactly the tokens it makes
    (lower case, words of two or more characters, English stop words dropped; accents, digits, underscores)."""
    import bm25s

    from hallu_metrics.longform.retrieval import bm25_query_tokens

    texts = ["Marie Curie won the Nobel Prize in 1911, and it was her second.", "École normale supérieure: a_b c 7 42!",
             "THE AND OF", "", "naïve cafés in São Paulo's 20th-century districts", "x y z"]
    assert [bm25_query_tokens(text) for text in texts] == bm25s.tokenize(
        texts, stopwords="en", return_ids=False, show_progress=False)


def test_bad_retriever_settings_are_clear_errors(store):
    """An unknown method or top_k below 1 is refused with a one-line error."""
    with pytest.raises(HallubenchError, match="unknown retrieval method"):
        Retriever(store, method="dense")
    with pytest.raises(HallubenchError, match="top_k"):
        Retriever(store, method="bm25", top_k=0)


def test_embedding_cache_persists_between_runs(store, tmp_path):
    """A second run on the same cache file embeds nothing and ranks identically; another model id does not
    reuse the vectors."""
    path = tmp_path / "embeddings.sqlite"
    claims = ["Curie died of anemia in 1934.", "Warsaw is a capital."]
    first = CountingEmbedder()
    cache = EmbeddingCache(path)
    before = [Retriever(store, first.embedder, cache=cache).retrieve(c, TITLES) for c in claims]
    assert first.texts == 7 + len(claims) and cache.computed == first.texts
    cache.close()

    second = CountingEmbedder()
    cache = EmbeddingCache(path)
    after = [Retriever(store, second.embedder, cache=cache).retrieve(c, TITLES) for c in claims]
    assert second.texts == 0 and cache.computed == 0 and after == before

    other = CountingEmbedder("test/other-model")
    Retriever(store, other.embedder, cache=cache).retrieve(claims[0], TITLES)
    assert other.texts == 7 + 1


def test_embedding_cache_memory_is_bounded(tmp_path):
    """The in-memory LRU never holds more than memory_items vectors; evicted ones come back from SQLite."""
    counting = CountingEmbedder()
    cache = EmbeddingCache(tmp_path / "e.sqlite", memory_items=3)
    texts = [f"text number {i}" for i in range(10)]
    first = cache.embed(counting.embedder, texts)
    assert cache.memory_count == 3
    again = cache.embed(counting.embedder, texts)
    assert counting.texts == 10 and np.array_equal(first, again) and cache.memory_count == 3
    assert first.dtype == np.float32 and first.shape == (10, 64)


def test_retrieval_from_outside_documents(tmp_path):
    """WildHallucinations-style: (url, text) pages not in any store are cut and ranked the same way."""
    retriever = Retriever(None, Embedder("test/bow", bag_of_words), cache=EmbeddingCache(), passage_words=8)
    documents = [
        ("https://example.org/bakery", "The bakery opened in 1998 on Main Street. It sells bread and pastries."),
        ("https://example.org/owner", "Its owner Ana Silva trained in Lisbon before moving to Ohio in 1995."),
    ]
    top = retriever.retrieve_from_documents("Ana Silva trained in Lisbon.", documents, topic="Silva Bakery")
    assert (top[0].title, top[0].index) == ("https://example.org/owner", 0)
    assert sorted((p.index, p.text) for p in top if p.title.endswith("bakery")) == [
        (0, "The bakery opened in 1998 on Main Street."), (1, "It sells bread and pastries.")
    ]
    with pytest.raises(HallubenchError, match="no knowledge store"):
        retriever.retrieve("claim", ["Title"])


def test_retrieval_is_thread_safe(store, tmp_path):
    """Eight worker threads sharing one retriever get the same rankings as a serial run."""
    retriever = Retriever(store, Embedder("test/bow", bag_of_words), cache=EmbeddingCache(tmp_path / "e.sqlite"))
    claims = [f"Curie {word} in {year}" for word in ("died", "won", "was born", "lived") for year in (1867, 1903, 1934)]
    serial = {c: retriever.retrieve(c, TITLES) for c in claims}
    retriever = Retriever(store, Embedder("test/bow", bag_of_words), cache=EmbeddingCache(tmp_path / "f.sqlite"))
    results, errors = {}, []

    def work(chunk):
        try:
            for claim in chunk:
                results[claim] = retriever.retrieve(claim, TITLES)
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(claims[i::8],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and results == serial


class SlowCountingEmbedder(CountingEmbedder):
    """Counts model calls and texts; each call takes a while, so that concurrent callers overlap."""

    def __init__(self):
        super().__init__()
        self.calls: list[int] = []

    def _encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(len(texts))
        threading.Event().wait(0.05)
        return super()._encode(texts)


def test_concurrent_misses_on_the_same_new_page_embed_it_once(store):
    """Eight threads ranking claims over the same pages, none of them cached yet, embed those pages' passages once
    between them (before the fix each thread embedded the whole page again while the others waited)."""
    counting = SlowCountingEmbedder()
    retriever = Retriever(store, counting.embedder, cache=EmbeddingCache())
    barrier = threading.Barrier(8)

    def work(i: int) -> None:
        barrier.wait()
        retriever.retrieve(f"Curie claim number {i}", TITLES)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    passages = len(retriever.candidate_passages(TITLES))
    assert counting.texts == passages + 8  # every passage once, plus each thread's own query


def test_prepared_queries_of_concurrent_items_share_model_calls(store):
    """Queries that items submit while the model is busy join one batch: 6 items x 4 claims take at most 3 model
    calls (the first item's batch, then everything that queued meanwhile), and ranking then embeds nothing new."""
    import asyncio

    counting = SlowCountingEmbedder()
    retriever = Retriever(store, counting.embedder, cache=EmbeddingCache())
    retriever.retrieve("warm the passage vectors", TITLES)
    counting.calls.clear()
    items = [[f"Curie fact {item}.{claim}" for claim in range(4)] for item in range(6)]

    async def all_items() -> None:
        async def one(queries: list[str]) -> None:
            await asyncio.sleep(0.01 * len(queries[0]) % 3)  # items arrive at slightly different times
            await retriever.prepare_queries(queries)

        await asyncio.gather(*(one(queries) for queries in items))

    asyncio.run(all_items())
    assert sum(counting.calls) == 24 and len(counting.calls) <= 3
    for queries in items:
        for text in queries:
            retriever.rank(text, retriever.candidate_passages(TITLES))
    assert sum(counting.calls) == 24


def test_bm25_needs_no_prepared_queries(store):
    """prepare_queries is a no-op for BM25 ranking (no model, nothing to cache)."""
    import asyncio

    retriever = Retriever(store, method="bm25")
    asyncio.run(retriever.prepare_queries(["Curie died in 1934"]))
    assert retriever.cache is None and retriever.rank("Curie died", retriever.candidate_passages(TITLES))


def test_ner_runs_once_for_a_question_asked_by_many_threads():
    """The claims of one question look up its entities at once: NER runs once, the other threads wait for it."""
    ner = SpacyNER()
    calls = []

    def slow_extract(text: str) -> tuple[str, ...]:
        calls.append(text)
        threading.Event().wait(0.05)
        return ("Marie Curie",)

    ner._extract = slow_extract
    barrier = threading.Barrier(8)
    results = []

    def work() -> None:
        barrier.wait()
        results.append(ner("Where was Marie Curie born?"))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["Where was Marie Curie born?"] and results == [["Marie Curie"]] * 8


def test_spans_covering_lists_title_shaped_stretches_around_the_entity():
    """Stretches start and end on token boundaries, cover the entity, and are listed shortest first."""
    assert spans_covering("The story Sitti Nurbaya's plot", "nurbaya", max_tokens=3) == [
        "Nurbaya", "Sitti Nurbaya", "Nurbaya'", "story Sitti Nurbaya", "Sitti Nurbaya'", "Nurbaya's"
    ]
    assert spans_covering("Alice met Bob", "Ali", max_tokens=2) == ["Alice", "Alice met"]
    assert spans_covering("nothing here", "Ali") == []


def test_candidate_titles_follow_the_paper(tmp_path):
    """Source page first; then pages named by an entity of the question whose title contains that entity and
    appears (any case) in the claim or question, and pages titled as an entity; a title containing the entity but
    absent from both is not a candidate, nor is one ending inside a word of the text ("Ali B" in "Ali Baba")."""
    pages = ["Sitti Nurbaya", "Sitti Nurbaya (film)", "Datuk Meringgih", "Marah Rusli", "Nurbaya Street", "Ali",
             "Ali B", "Balai Pustaka"]
    write_store(tmp_path / "kb", [(title, f"Text about {title}.") for title in pages], progress=False)
    question = "What are the motivations of Datuk Meringgih in the story Sitti Nurbaya?"
    claim = "Meringgih is the villain of sitti nurbaya, published by Balai Pustaka, says Ali Baba."

    def ner(text):
        assert text == question
        return ["Meringgih", "Nurbaya", "Ali"]

    with KnowledgeStore.open(tmp_path / "kb", progress=False) as store:
        titles = candidate_titles(store, question, claim, "Marah Rusli", ner)
    assert titles == ["Marah Rusli", "Datuk Meringgih", "Sitti Nurbaya", "Ali"]


def test_spacy_ner_finds_title_shaped_names():
    """The offline spaCy model finds the question's names without articles, possessives, or dates."""
    ner = SpacyNER()
    question = "What role did Colonel Tom Parker play in Elvis Presley's career in the United States after 1955?"
    assert ner(question) == ["Tom Parker", "Elvis Presley", "United States"]


def test_offline_minilm_ranks_a_paraphrased_fact_first(store):
    """The real all-MiniLM-L6-v2 (from its PyPI wheel) ranks the passage that states a paraphrased claim
    first, with almost no words in common."""
    retriever = Retriever(store, offline_embedder(), cache=EmbeddingCache())
    top = retriever.retrieve("The physicist passed away from a blood disease in the mid-1930s.", TITLES)
    assert (top[0].title, top[0].index) == ("Marie Curie", 3)
    top = retriever.retrieve("Her birthplace was the Polish capital.", TITLES, topic="Marie Curie")
    assert (top[0].title, top[0].index) == ("Marie Curie", 0)


def test_a_broken_embedding_cache_is_one_clear_error(tmp_path):
    """Garbage, a folder, or a path below a file: one line naming the cache, as for the model-call cache."""
    garbage, folder, below = tmp_path / "garbage.sqlite", tmp_path / "folder.sqlite", tmp_path / "f" / "e.sqlite"
    garbage.write_bytes(b"not a database" * 100)
    folder.mkdir()
    (tmp_path / "f").write_text("a file")
    for path, reason in ((garbage, "file is not a database"), (folder, "it is a folder"), (below, "")):
        with pytest.raises(HallubenchError, match=f"^cannot open the embedding cache {re.escape(str(path))}: {reason}"):
            EmbeddingCache(path)


def test_a_lone_surrogate_is_embedded_and_cached(tmp_path):
    """Text with a lone surrogate (a broken JSON escape in a response) gets a key instead of a traceback."""
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    vectors = cache.embed(CountingEmbedder().embedder, ["caf\ud800", "caf\ud800", "plain"])
    assert vectors.shape[0] == 3 and cache.computed == 2
