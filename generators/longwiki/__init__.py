"""LongWiki test-set generator (HalluLens 3.2.2 "Test Prompt Generation").

Pages of WikiRank levels 5-9 (the easier half of the 10 harmonic-centrality bins), N/5 prompts per level. One
section of 500-750 tokens per page (``hallubench_generators.common.chunking``; the last section is dropped when a page
has more
than two), drawn under the seed. A prompt-writer call (temperature 0.7, top_p 0.9) asks for a question grounded
in the section that needs at least a paragraph, with the escape reply ``[NO QUESTION]``; an answerability call
(greedy) writes a mock answer from the section alone. Rejected: the escape reply (the reference code forgets
it), unanswerable replies and replies opening with "Unfortunately", mock answers under 4 sentences, questions
that lean on the unseen text ("this section"), duplicates. Pages whose title is absent from the knowledge store
used for verification are skipped. Levels are topped up from further pages until full; a shortfall is an error
naming each level (or, with ``--allow-shortfall``, reported in the card).

``--question-writer offline`` (no LLM; the embedded default) asks about the page and the section's heading, or
for a lead "Tell me about <title>, <definition from its first sentence>.", and uses the section itself as the
mock answer, so the 4-sentence rule still applies. Without WikiRank files the set has no levels (``level``
null): one pool, as with the offline Vital Articles, whose pages are lead summaries without sections (the lead
is then the "section").

Modules: ``prompts`` (the two requests), ``checks`` (reply readers), ``offline`` (the offline writer),
``pipeline`` (levels, waves, rows), ``card``.
"""

from __future__ import annotations

from typing import Any

import datasets

from hallu_metrics.benchmarks.longwiki import BENCHMARK
from hallubench.core.backends import ModelClient
from hallubench.core.errors import HallubenchError
from hallubench_generators.common.protocol import sent
from hallubench_generators.common.publishing import CardInfo
from hallubench_generators.longwiki.card import OFFLINE_WRITER, card_for
from hallubench_generators.longwiki.pipeline import Settings, generate
from hallubench_generators.longwiki.prompts import answer_request, prompt_request

HELP = "Generate a LongWiki prompt set (HalluLens 3.2)"
CLIENT_OPTION = "generator"

FEATURES = datasets.Features({
    **BENCHMARK.columns,
    "h_score": datasets.Value("float64"),
    "pageid": datasets.Value("int64"),
    "revid": datasets.Value("int64"),
    "section_index": datasets.Value("int32"),
    "mock_answer": datasets.Value("string"),
})


def sent_prompts() -> dict[str, Any]:
    """The LLM writer's two requests on placeholder inputs (the offline writer sends nothing)."""
    return {"prompt": sent(prompt_request("{title}", "{section}", Settings(n=1, seed=0))),
            "answer": sent(answer_request("{section}", "{question}"))}


def add_arguments(parser) -> None:
    from hallubench_generators.common.articles import SOURCE_HELP

    parser.add_argument("--source", required=True, help=SOURCE_HELP)
    parser.add_argument("--n", type=int, required=True, help="prompts in the set (split evenly over levels 5-9)")
    parser.add_argument(
        "--question-writer", choices=["llm", "offline"], default="llm",
        help="'llm' (default, the paper's pipeline with --generator) or 'offline': template prompts without an LLM "
        "(docs/longwiki.md)",
    )
    # An empty list tells hallubench_generators.cli to open no client (the offline writer needs none).
    parser.add_argument(
        "--generator", default=[], help="backend spec of the prompt writer (with --question-writer llm)"
    )
    parser.add_argument("--knowledge", help="knowledge store used for verification: pages absent from it are skipped")
    parser.add_argument("--wikirank-titles", help="WikiRank titles file (path or URL), e.g. enwiki-2024.titles")
    parser.add_argument("--wikirank-scores", help="WikiRank harmonic centrality file (path or URL)")
    parser.add_argument("--min-section-tokens", type=int, default=500)
    parser.add_argument("--max-section-tokens", type=int, default=750)
    parser.add_argument(
        "--allow-shortfall", action="store_true", help="write a smaller set (reported in the card) instead of failing"
    )


def _titles_in_store(knowledge: str, titles: list[str]) -> set[str]:
    from hallu_metrics.longform.knowledge import KnowledgeStore

    with KnowledgeStore.open(knowledge, progress=False) as store:
        return {title for title in titles if title in store}


def run(args, client: ModelClient | list) -> tuple[list[dict], CardInfo]:
    from hallubench_generators.common.articles import load_articles

    offline = args.question_writer == "offline"
    if offline and args.generator:
        raise HallubenchError("--generator is not used with --question-writer offline; drop one of them")
    if not offline and not args.generator:
        raise HallubenchError("--generator SPEC is required (or pass --question-writer offline)")
    if bool(args.wikirank_titles) != bool(args.wikirank_scores):
        raise HallubenchError("--wikirank-titles and --wikirank-scores go together")
    centrality = (args.wikirank_titles, args.wikirank_scores) if args.wikirank_titles else None
    settings = Settings(n=args.n, seed=args.seed, min_tokens=args.min_section_tokens,
                        max_tokens=args.max_section_tokens, allow_shortfall=args.allow_shortfall)
    source = load_articles(args.source)
    in_store = _titles_in_store(args.knowledge, [a.title for a in source.articles]) if args.knowledge else None
    rows, report, binning = generate(source, None if offline else client, settings, centrality, in_store)
    writer = OFFLINE_WRITER if offline else f"LLM `{client.public_spec}`"
    card = card_for(source, args.source, settings, writer, report, binning, centrality, rows, args.knowledge)
    return rows, card
