"""WildHallucinations test-set generator (Zhao et al., 2024, section 2 and appendix C).

``hallubench generate wildhallucinations --conversations HUB_ID_OR_PATH --extractor SPEC [--verifier SPEC]
--search brave|google|folder:PATH --n N`` mines entities from WildChat-format conversations and builds
each one's knowledge source from its top 10 search results; ``--entities-from wiki-offline`` instead
takes Wikipedia Vital Articles entities with their lead as the only page (offline, no LLM needed).
Rows follow the Hub dataset's schema (entity, perplexity, info, category) plus provenance columns.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

import datasets

from hallubench.core.backends import ModelClient
from hallubench.core.errors import HallubenchError
from hallubench_generators.common.protocol import sent
from hallubench_generators.common.publishing import CardInfo
from hallubench_generators.wildhallucinations import card, pipeline
from hallubench_generators.wildhallucinations.conversations import UserTurn, load_conversations
from hallubench_generators.wildhallucinations.entities import load_excluded
from hallubench_generators.wildhallucinations.fetch import Fetcher, FetchPolicy
from hallubench_generators.wildhallucinations.knowledge import (
    FolderKnowledge,
    KnowledgeSource,
    WebKnowledge,
)
from hallubench_generators.wildhallucinations.prompts import (
    ambiguity_request,
    category_request,
    extract_request,
    verify_request,
)
from hallubench_generators.wildhallucinations.rarity import EntityPerplexity
from hallubench_generators.wildhallucinations.search import BACKENDS
from hallubench_generators.wildhallucinations.webcache import WebCache, default_web_cache_path

HELP = "Generate a WildHallucinations entity set (Zhao et al., 2024, section 2)"
CLIENT_OPTION = ("extractor", "verifier")  # two optional model roles; the verifier defaults to the extractor
WIKI_OFFLINE = "wiki-offline"
HUB_COLUMNS = ("entity", "perplexity", "info", "category")  # wentingzhao/WildHallucinations
FEATURES = datasets.Features(
    {
        "entity": datasets.Value("string"),
        "perplexity": datasets.Value("float64"),
        "info": datasets.List(
            {"status_code": datasets.Value("int64"), "text": datasets.Value("string"), "url": datasets.Value("string")}
        ),
        "category": datasets.Value("string"),
        "conversation_ids": datasets.List(datasets.Value("string")),
        "search_backend": datasets.Value("string"),
        "fetch_date": datasets.Value("string"),
    }
)


def sent_prompts() -> dict[str, Any]:
    """The extractor's and the verifier's requests on placeholder inputs (section 2.1: extract, verify, ambiguity;
    section 2.2: category)."""
    return {"extract": sent(extract_request(UserTurn("{conversation_id}", "{user turn}"))),
            "verify": sent(verify_request("{entity}")),
            "ambiguity": sent(ambiguity_request("{entity}")),
            "category": sent(category_request("{entity}"))}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--conversations", metavar="HUB_ID_OR_PATH",
                        help="WildChat-format conversations: a Hub id[@REV] (allenai/WildChat-1M) or a "
                             ".jsonl/.parquet file")
    source.add_argument("--entities-from", choices=[WIKI_OFFLINE],
                        help="take entities and their lead text from the offline Wikipedia Vital Articles instead")
    parser.add_argument("--n", type=int, required=True, help="number of entities")
    parser.add_argument("--extractor", metavar="SPEC", help="model spec listing proper nouns (the paper: GPT-3.5)")
    parser.add_argument("--verifier", metavar="SPEC",
                        help="model spec verifying names, removing ambiguous ones and picking categories (the paper: "
                             "GPT-4o); default: the extractor")
    parser.add_argument("--search", metavar="BACKEND",
                        help="brave ($BRAVE_API_KEY), google ($GOOGLE_API_KEY, $GOOGLE_CSE_ID) or folder:PATH")
    parser.add_argument("--search-endpoint", metavar="URL", help="override the search API URL (a proxy or test server)")
    parser.add_argument("--exclude", action="append", default=[], metavar="SET",
                        help="drop entities of an earlier set (saved folder or Hub id); repeatable")
    parser.add_argument("--rarity-model", metavar="SPEC",
                        help="local model for entity perplexity (hf:pretrained=...; the paper: Llama-3-8B); "
                             "without it perplexity is null")
    parser.add_argument("--web-cache", type=Path, help="SQLite cache of searches and fetches (default: web.sqlite "
                                                       "beside the call cache)")
    parser.add_argument("--fetch-timeout", type=float, default=FetchPolicy.timeout, help="seconds per page")
    parser.add_argument("--max-page-bytes", type=int, default=FetchPolicy.max_bytes, help="larger pages are dropped")
    parser.add_argument("--fetch-concurrency", type=int, default=FetchPolicy.concurrency, help="pages fetched at once")
    parser.add_argument("--per-host", type=int, default=FetchPolicy.per_host, help="pages fetched at once per host")
    parser.add_argument("--refetch-failed", action="store_true",
                        help="fetch again cached pages that timed out or failed")


def _knowledge(args: argparse.Namespace) -> KnowledgeSource:
    if args.search is None:
        raise HallubenchError("--conversations needs --search brave|google|folder:PATH")
    if args.search.startswith("folder:"):
        return FolderKnowledge(Path(args.search.removeprefix("folder:")).expanduser())
    if args.search not in BACKENDS:
        raise HallubenchError(f"unknown --search {args.search!r}: expected brave, google or folder:PATH")
    default = Path(args.cache).parent / "web.sqlite" if args.cache else default_web_cache_path()
    cache = WebCache(args.web_cache or default)
    policy = FetchPolicy(args.fetch_timeout, args.max_page_bytes, args.fetch_concurrency, args.per_host)
    return WebKnowledge(BACKENDS[args.search](cache, args.search_endpoint), Fetcher(cache, policy, args.refetch_failed))


def _check(args: argparse.Namespace) -> None:
    if args.n < 1:
        raise HallubenchError("--n must be at least 1")
    if args.conversations and not args.extractor:
        raise HallubenchError("--conversations needs --extractor SPEC")


def run(args: argparse.Namespace, clients: dict[str, ModelClient | None]) -> tuple[list[dict], CardInfo]:
    """Build the set; ``clients`` holds the extractor and verifier opened by the CLI (either may be None)."""
    _check(args)
    excluded = load_excluded(args.exclude)
    scorer = EntityPerplexity(args.rarity_model) if args.rarity_model else None
    extractor = clients["extractor"]
    verifier = clients["verifier"] or extractor
    counts: Counter = Counter()
    if args.conversations:
        source, knowledge = load_conversations(args.conversations), _knowledge(args)
        entries = pipeline.from_conversations(
            source, extractor, verifier, knowledge, excluded, args.n, args.seed, counts
        )
        counts.update(source.counts)
        backend, provenance = knowledge.name, card.from_conversations(source, extractor, verifier, knowledge)
    else:
        entries = pipeline.from_wiki_offline(verifier, excluded, args.n, args.seed, counts)
        backend, provenance = WIKI_OFFLINE, card.from_wiki_offline(verifier)
    if len(entries) < args.n:
        survived = ", ".join(f"{key}: {value}" for key, value in sorted(counts.items()))
        raise HallubenchError(
            f"only {len(entries)} of {args.n} entities survived ({survived}); model calls, searches and "
            "fetches are cached, so a re-run with a larger source or a smaller --n repeats none of them"
        )
    perplexities = scorer.perplexities([e.entity for e in entries]) if scorer else [None] * len(entries)
    rows = pipeline.rows(entries, perplexities, backend)
    return rows, card.build(rows, counts, provenance, scorer.spec if scorer else None, args.seed)
