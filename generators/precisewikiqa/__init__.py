"""PreciseWikiQA test-set generator (HalluLens 3.1): pick pages per difficulty bin, pick one
chunk, ask the generator for one short-answer question, answer it separately from the chunk
alone, reject unanswerable / long answers and unusable items (hallubench_generators.common.question_checks), and top up
each bin from further pages until its quota is met or the source runs out. ``--question-writer offline``
replaces the LLM by template questions (hallubench_generators.common.offline_questions) for machines without one.

Modules: ``prompts`` (the two requests), ``checks`` (reply readers), ``pipeline`` (bins, waves, rows), ``card``."""

from __future__ import annotations

from typing import Any

import datasets

from hallu_metrics.benchmarks.precisewikiqa import BENCHMARK
from hallubench.core.backends import ModelClient
from hallubench.core.errors import HallubenchError
from hallubench_generators.common.protocol import sent
from hallubench_generators.common.publishing import CardInfo
from hallubench_generators.precisewikiqa.card import OFFLINE_WRITER, card_for
from hallubench_generators.precisewikiqa.pipeline import Settings, generate
from hallubench_generators.precisewikiqa.prompts import answer_request, question_request

HELP = "Generate a PreciseWikiQA test set (HalluLens 3.1)"
CLIENT_OPTION = "generator"  # the question writer; empty with --question-writer offline

FEATURES = datasets.Features({
    **BENCHMARK.columns,
    "h_score": datasets.Value("float64"),
    "pageid": datasets.Value("int64"),
    "revid": datasets.Value("int64"),
    "chunk_index": datasets.Value("int32"),
})


def sent_prompts() -> dict[str, Any]:
    """The LLM writer's two requests on placeholder inputs (the offline writer sends nothing)."""
    return {"question": sent(question_request("{title}", "{reference}", Settings(n=1, seed=0))),
            "answer": sent(answer_request("{reference}", "{question}"))}


def add_arguments(parser) -> None:
    from hallubench_generators.common.articles import SOURCE_HELP

    parser.add_argument("--source", required=True, help=SOURCE_HELP)
    parser.add_argument("--n", type=int, required=True, help="questions in the set (split evenly over the bins)")
    parser.add_argument(
        "--question-writer",
        choices=["llm", "offline"],
        default="llm",
        help="'llm' (default, the paper's pipeline with --generator) or 'offline': template questions without an "
        "LLM, an easier stand-in for machines without one (docs/precisewikiqa.md)",
    )
    # An empty list tells hallubench_generators.cli to open no client (the offline writer needs none).
    parser.add_argument(
        "--generator",
        default=[],
        help="backend spec of the question/answer generator (required with --question-writer llm)",
    )
    parser.add_argument("--wikirank-titles", help="WikiRank titles file (path or URL), e.g. enwiki-2024.titles")
    parser.add_argument(
        "--wikirank-scores", help="WikiRank harmonic centrality file (path or URL), parallel to the titles"
    )
    parser.add_argument("--min-chunk-tokens", type=int, default=200)
    parser.add_argument("--max-chunk-tokens", type=int, default=500)
    parser.add_argument(
        "--allow-shortfall", action="store_true", help="write a smaller set (reported in the card) instead of failing"
    )


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
    settings = Settings(
        n=args.n,
        seed=args.seed,
        min_tokens=args.min_chunk_tokens,
        max_tokens=args.max_chunk_tokens,
        allow_shortfall=args.allow_shortfall,
    )
    source = load_articles(args.source)
    model = None if offline else client
    rows, report, binning = generate(source, model, settings, centrality)
    writer = OFFLINE_WRITER if offline else f"LLM `{client.public_spec}`"
    return rows, card_for(source, args.source, settings, writer, report, binning, centrality, rows)
