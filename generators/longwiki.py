"""LongWiki test-set generator (HalluLens 3.2.2 "Test Prompt Generation").

Pages of WikiRank levels 5-9 (the easier half of the 10 harmonic-centrality bins), N/5 prompts per level. One
section of 500-750 tokens per page (``hallubench_generators.chunking``; the last section is dropped when a page has more
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
"""

from __future__ import annotations

import hashlib
import re
import statistics
from dataclasses import dataclass
from typing import Any

import datasets

from hallu_metrics.longwiki import BENCHMARK
from hallubench.backends import ChatRequest, ModelClient
from hallubench.errors import HallubenchError
from hallubench.seeding import seeded_rng
from hallubench_generators.chunking import chunk_article, count_tokens, split_sentences
from hallubench_generators.difficulty import Binning, bin_by_centrality, binned_pools, load_centrality, split_quota
from hallubench_generators.protocol import sent
from hallubench_generators.publishing import CardInfo, generation_date
from hallubench_generators.question_checks import unresolved_reference
from hallubench_generators.quota_fill import PageQuestionSettings, QuotaReport, check_shortfall, fill_quotas
from hallubench_generators.sources.articles import OFFLINE_SOURCE, Article, LoadedSource

N_BINS = 10
LEVELS = (5, 6, 7, 8, 9)
MIN_MOCK_SENTENCES = 4
NO_QUESTION = "[NO QUESTION]"
CLIENT_OPTION = "generator"

FEATURES = datasets.Features({
    **BENCHMARK.columns,
    "h_score": datasets.Value("float64"),
    "pageid": datasets.Value("int64"),
    "revid": datasets.Value("int64"),
    "section_index": datasets.Value("int32"),
    "mock_answer": datasets.Value("string"),
})


@dataclass
class Settings(PageQuestionSettings):
    """Generation parameters (HalluLens 3.2.2 defaults: sections of 500-750 tokens)."""

    min_tokens: int = 500
    max_tokens: int = 750


@dataclass
class Candidate:
    article: Article
    level: int | None
    h_score: float | None
    section_index: int = 0
    reference: str = ""
    prompt: str = ""
    mock_answer: str = ""


@dataclass
class Report(QuotaReport):
    """Counts for the dataset card, plus the pages skipped as absent from the knowledge store."""

    skipped_not_in_store: int = 0


def _prompt_messages(title: str, section: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": (
        f'Here is a section of the Wikipedia article "{title}":\n\n{section}\n\n'
        f"Write ONE question that a curious user could ask about {title} and that\n"
        "- can be answered fully from this section alone,\n"
        "- needs an answer of at least a paragraph (several sentences): ask to describe, explain or compare,\n"
        "- is objective (no opinions) and names its subject, so it makes sense without the section,\n"
        "- does not mention the section, the article or the text.\n"
        f"If the section does not allow such a question, reply with exactly {NO_QUESTION}\n"
        "Reply with the question only."
    )}]


def _answer_messages(section: str, question: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": (
        f"Reference text:\n{section}\n\nQuestion: {question}\n\n"
        "Answer the question in one paragraph, using only the reference text. If the reference text does not "
        "answer the question, reply with the single word: unanswerable"
    )}]


def prompt_request(title: str, section: str, settings: Settings, seed: int | None = None) -> ChatRequest:
    """The prompt writer's request (sampled: HalluLens' temperature and top_p)."""
    return ChatRequest.from_messages(_prompt_messages(title, section), temperature=settings.question_temperature,
                                     top_p=settings.question_top_p, max_tokens=128, seed=seed)


def answer_request(section: str, question: str) -> ChatRequest:
    """The greedy answerability request: a mock answer from the section alone."""
    return ChatRequest.from_messages(_answer_messages(section, question), temperature=0.0, max_tokens=512)


def prompts() -> dict[str, Any]:
    """The LLM writer's two requests on placeholder inputs (the offline writer sends nothing)."""
    return {"prompt": sent(prompt_request("{title}", "{section}", Settings(n=1, seed=0))),
            "answer": sent(answer_request("{section}", "{question}"))}


_LABEL = re.compile(r"^\s*(?:\*\*)?(?:question|q)\s*[:.)-]\s*(?:\*\*)?\s*", re.IGNORECASE)


def parse_prompt(text: str) -> tuple[str | None, str | None]:
    """``(question, None)`` or ``(None, rejection reason)``: the escape reply, nothing, or a question that leans
    on text the user does not have."""
    if NO_QUESTION.lower() in text.lower():
        return None, "no_question_marker"
    lines = [_LABEL.sub("", line).strip().strip("*\"'` ") for line in text.strip().splitlines() if line.strip()]
    question = " ".join(line for line in lines if line)
    if not question:
        return None, "empty_question"
    if unresolved_reference(question):
        return None, "not_self_contained"
    return question, None


def mock_answer_problem(text: str) -> str | None:
    """Why a mock answer rejects its question (HalluLens 3.2.2), or None."""
    answer = text.strip()
    if not answer or "unanswerable" in answer.lower() or answer.lower().startswith("unfortunately"):
        return "unanswerable"
    if len(split_sentences(" ".join(answer.split()))) < MIN_MOCK_SENTENCES:
        return "mock_answer_too_short"
    return None


_DEFINITION = re.compile(r"\s(?:is|was|are|were)\s+(?P<predicate>(?:the|a|an)\s[^,;()]+)")
_HEADING = re.compile(r"^#{2,}\s*(?P<heading>.+?)\s*$", re.MULTILINE)
MAX_DEFINITION_WORDS = 14


def offline_prompt(title: str, lead: str, section: str) -> str:
    """The offline writer's prompt: the page and the section's first heading ('Tell me about Manhattan, in
    particular "History".'), or for a lead the page with the defining phrase of its first sentence when short
    ("Tell me about Sirius, the brightest star in the night sky."), else the page alone."""
    heading = _HEADING.search(section)
    if heading:
        return f'Tell me about {title}, in particular "{heading.group("heading")}".'
    first = split_sentences(" ".join(lead.split()))[:1]
    match = _DEFINITION.search(first[0]) if first else None
    predicate = match.group("predicate").rstrip(" .") if match else ""
    if not predicate or len(predicate.split()) > MAX_DEFINITION_WORDS:
        return f"Tell me about {title}."
    if predicate.split()[0] in ("a", "an"):
        predicate = "the " + predicate.split(" ", 1)[1]
    return f"Tell me about {title}, {predicate}."


def _pick_section(cand: Candidate, settings: Settings) -> bool:
    sections = chunk_article(cand.article.markdown, settings.min_tokens, settings.max_tokens)
    if not sections:
        return False
    cand.section_index = seeded_rng(settings.seed, "section", cand.article.title).randrange(len(sections))
    cand.reference = sections[cand.section_index]
    return True


def _write_with_llm(wave: list[Candidate], client: ModelClient, settings: Settings, report: Report) -> None:
    """Prompt then mock answer for every candidate of a wave, in two batched passes."""
    replies = client.complete_or_raise(
        [prompt_request(c.article.title, c.reference, settings,
                        seeded_rng(settings.seed, "prompt", c.article.title).getrandbits(31)) for c in wave],
        desc="generate: prompts",
    )
    asked = []
    for cand, text in zip(wave, replies):
        question, reason = parse_prompt(text)
        if question is None:
            report.rejected[reason] += 1
        else:
            cand.prompt = question
            asked.append(cand)
    answers = client.complete_or_raise([answer_request(c.reference, c.prompt) for c in asked],
                                       desc="generate: mock answers")
    for cand, text in zip(asked, answers):
        reason = mock_answer_problem(text)
        if reason:
            report.rejected[reason] += 1
        else:
            cand.mock_answer = text.strip()


def _write_offline(wave: list[Candidate], report: Report) -> None:
    for cand in wave:
        reason = mock_answer_problem(cand.reference)
        if reason:
            report.rejected[reason] += 1
        else:
            lead = cand.article.markdown.split("\n#", 1)[0]
            cand.prompt = offline_prompt(cand.article.title, lead, cand.reference)
            cand.mock_answer = cand.reference


def generate(
    source: LoadedSource, client: ModelClient | None, settings: Settings, centrality: tuple[str, str] | None,
    in_store: set[str] | None,
) -> tuple[list[dict], Report, Binning | None]:
    """Run the pipeline (``client`` None = offline writer; ``in_store`` None = no knowledge-store check)."""
    if settings.n < 1:
        raise HallubenchError("--n must be at least 1")
    articles = source.articles
    binning = None
    if centrality:
        binning = bin_by_centrality([a.title for a in articles], load_centrality(*centrality), N_BINS)
    report = Report()
    if in_store is not None:
        kept = [a for a in articles if a.title in in_store]
        report.skipped_not_in_store = len(articles) - len(kept)
        articles = kept
    pools = binned_pools(articles, binning, settings.seed, Candidate, keep=lambda level: level in LEVELS)
    levels: list[int | None] = list(LEVELS) if binning else [None]
    report.quotas = split_quota(settings.n, levels)

    def write_wave(wave: list[Candidate]) -> list[tuple[Candidate, str]]:
        wave = [c for c in wave if _pick_section(c, settings)]
        if client is None:
            _write_offline(wave, report)
        else:
            _write_with_llm(wave, client, settings, report)
        return [(cand, cand.prompt.lower()) for cand in wave if cand.mock_answer]

    accepted = fill_quotas(pools, report, write_wave, lambda cand: cand.level)
    check_shortfall(report, settings, lambda level: f"level {level}", "level")
    rows = [_row(cand) for level in levels for cand in accepted[level]]
    return rows, report, binning


def _row(cand: Candidate) -> dict:
    return {
        "id": "lw-" + hashlib.sha1(f"{cand.article.title}\n{cand.prompt}".encode()).hexdigest()[:12],
        "prompt": cand.prompt,
        "title": cand.article.title,
        "reference": cand.reference,
        "level": cand.level,
        "h_score": cand.h_score,
        "pageid": cand.article.pageid,
        "revid": cand.article.revid,
        "section_index": cand.section_index,
        "mock_answer": cand.mock_answer,
    }


OFFLINE_WRITER = "offline template (no LLM)"
_OFFLINE_METHOD = (
    "An **offline stand-in** for HalluLens' LLM-written prompts, for machines without a capable LLM: a section "
    'with a heading gives "Tell me about <title>, in particular \"<heading>\"."; a lead gives "Tell me about '
    '<title>, <the defining phrase of its first sentence>." (or "Tell me about <title>." when there is no short '
    "one). The section itself serves as the mock answer, so the 4-sentence rule still applies. Such prompts ask "
    "for an overview rather than a question a user would write; their numbers are not comparable with HalluLens'."
)


def card_for(source: LoadedSource, source_option: str, settings: Settings, writer: str, report: Report,
             binning: Binning | None, centrality: tuple[str, str] | None, rows: list[dict],
             knowledge: str | None) -> CardInfo:
    """The dataset card: provenance, method, parameters, counts per level and rejections."""
    label = lambda level: "none" if level is None else str(level)
    table = "| level | quota | pages tried | accepted |\n|---|---|---|---|\n" + "\n".join(
        f"| {label(level)} | {q} | {report.tried[level]} | {report.accepted[level]} |"
        for level, q in report.quotas.items()
    )
    rejections = "\n".join(f"- {reason}: {count}" for reason, count in sorted(report.rejected.items())) or "- none"
    if binning:
        levels = (
            f"Levels 5-9 of 10 WikiRank harmonic-centrality bins (deciles over the {len(binning.scores)} source pages "
            f"with a score; titles `{centrality[0]}`, scores `{centrality[1]}`), the easier half as in HalluLens; "
            f"edges {', '.join(f'{e:.6g}' for e in binning.edges)}; {len(binning.unmatched)} pages had no score."
        )
    else:
        levels = (
            "No centrality data was given, so the set has **no levels** (`level` and `h_score` are null). Pass "
            "--wikirank-titles/--wikirank-scores for the paper's levels 5-9"
            + (" (WikiRank's files are not available offline)." if source_option == OFFLINE_SOURCE else ".")
        )
    tokens = [count_tokens(r["reference"]) for r in rows] or [0]
    sections = (
        f"- sections: bounds {settings.min_tokens}-{settings.max_tokens} tokens (words + punctuation); in this set "
        f"{min(tokens)}-{max(tokens)} tokens (median {statistics.median(tokens):g})"
    )
    if source_option == OFFLINE_SOURCE:
        sections += "; the offline Vital Articles are lead summaries without sections, so each lead is the section"
    store = (f"- knowledge store: `{knowledge}`; pages absent from it skipped: {report.skipped_not_in_store}"
             if knowledge else "- knowledge store: none given, pages were not checked against one")
    generation = [f"- prompt writer: {writer}", f"- seed: {settings.seed}", f"- requested: {settings.n}", sections,
                  store]
    if writer != OFFLINE_WRITER:
        generation.append(f"- prompt sampling: temperature {settings.question_temperature}, top_p "
                          f"{settings.question_top_p}; mock answers greedy")
    generation.append(f"- date: {generation_date()}")
    body = {
        "Source": f"- source: {source.name}\n- revision: {source.revision or 'n/a'}\n"
                  f"- pages available: {len(source.articles)}",
        "Generation": "\n".join(generation),
    }
    if writer == OFFLINE_WRITER:
        body["Method"] = _OFFLINE_METHOD
    body |= {
        "Levels": levels,
        "Counts per level": table,
        "Rejections": rejections,
        "Columns": "`id`, `prompt`, `title` (source page, the first evidence page), `reference` (the section), "
                   "`level` (5-9 or null), `h_score`, `pageid`, `revid`, `section_index`, `mock_answer` (used only "
                   "for the length check).",
    }
    summary = (
        "Paragraph-length questions generated from Wikipedia sections, following HalluLens' LongWiki (Bang et al., "
        "2025, section 3.2). Evaluate with the lm-eval task `longwiki` from hallubench and a knowledge store "
        "(`hallubench knowledge build`)."
    )
    if writer == OFFLINE_WRITER:
        summary += " This set is an offline stand-in with template prompts (see Method)."
    return CardInfo(pretty_name="LongWiki (hallubench dynamic test set)", license=source.license,
                    task_categories=["text-generation"], summary=summary, sections=body)


def add_arguments(parser) -> None:
    from hallubench_generators.sources.articles import SOURCE_HELP

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
    from hallubench_generators.sources.articles import load_articles

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
