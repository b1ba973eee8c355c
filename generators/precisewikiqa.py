"""PreciseWikiQA test-set generator (HalluLens 3.1): pick pages per difficulty bin, pick one
chunk, ask the generator for one short-answer question, answer it separately from the chunk
alone, reject unanswerable / long answers, and top up each bin from further pages until its
quota is met or the source runs out."""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import datasets

from hallubench.backends import ChatRequest, ModelClient
from hallubench.errors import HallubenchError
from generators.chunking import chunk_article
from generators.difficulty import Binning, bin_by_centrality, load_centrality
from generators.publishing import CardInfo, generation_date
from generators.sources.articles import Article, LoadedSource

N_BINS = 10
MAX_ANSWER_WORDS = 10

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "question": datasets.Value("string"),
        "answer": datasets.Value("string"),
        "title": datasets.Value("string"),
        "reference": datasets.Value("string"),
        "difficulty": datasets.Value("int32"),
        "h_score": datasets.Value("float64"),
        "pageid": datasets.Value("int64"),
        "revid": datasets.Value("int64"),
        "chunk_index": datasets.Value("int32"),
    }
)


@dataclass
class Settings:
    """Generation parameters (HalluLens defaults)."""

    n: int
    seed: int
    min_tokens: int = 200
    max_tokens: int = 500
    question_temperature: float = 0.7
    question_top_p: float = 0.9
    allow_shortfall: bool = False


@dataclass
class Candidate:
    article: Article
    difficulty: int | None
    h_score: float | None
    chunk_index: int = 0
    reference: str = ""
    question: str = ""
    answer: str = ""


@dataclass
class Report:
    """Counts for the dataset card."""

    quotas: dict[int | None, int] = field(default_factory=dict)
    accepted: Counter = field(default_factory=Counter)
    tried: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)


def _question_messages(title: str, reference: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": (
        f'Here is an excerpt from the Wikipedia article "{title}":\n\n{reference}\n\n'
        f"Write ONE factual question about {title} that\n"
        "- can be answered from this excerpt alone,\n"
        "- is objective (no opinions),\n"
        "- names its subject fully, so it makes sense without the excerpt,\n"
        "- has a single short answer: a word, a name, a number, a date or a short phrase.\n"
        "Reply with the question only."
    )}]


def _answer_messages(reference: str, question: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": (
        f"Reference text:\n{reference}\n\nQuestion: {question}\n\n"
        "Using only the reference text, give the answer as a word or a short phrase and nothing else. "
        "If the reference text does not answer the question, reply with the single word: unanswerable"
    )}]


_PREFIX = re.compile(r"^\s*(?:\*\*)?(?:question|q|answer|a)\s*[:.)-]\s*(?:\*\*)?\s*", re.IGNORECASE)
_UNANSWERABLE = re.compile(r"unanswerable|not answerable|cannot be answered|can't be answered|not (?:mentioned|stated|provided)", re.IGNORECASE)


def parse_question(text: str) -> str | None:
    """The first line that reads as a question, without labels, numbering or quotes."""
    for line in text.splitlines():
        line = _PREFIX.sub("", re.sub(r"^\s*(?:\d+[.)]|[-*])\s+", "", line)).strip().strip("*\"'` ")
        if "?" in line:
            question = line[: line.rindex("?") + 1].strip()
            if len(question.split()) >= 3:
                return question
    return None


def parse_answer(text: str) -> tuple[str | None, str | None]:
    """``(answer, None)`` or ``(None, rejection reason)`` following HalluLens' filters."""
    lines = [l for l in text.strip().splitlines() if l.strip()]
    if not lines:
        return None, "empty_answer"
    answer = _PREFIX.sub("", re.sub(r"^\s*(?:\d+[.)]|[-*])\s+", "", lines[0])).strip().strip("*\"'` ").rstrip(".").strip()
    if not answer:
        return None, "empty_answer"
    if _UNANSWERABLE.search(answer) or answer.lower().startswith("unfortunately"):
        return None, "unanswerable"
    if len(answer.split()) > MAX_ANSWER_WORDS:
        return None, "answer_too_long"
    return answer, None


def _seed_for(seed: int, *parts: object) -> int:
    digest = hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _pools(source: LoadedSource, binning: Binning | None, seed: int) -> dict[int | None, list[Candidate]]:
    """Seeded, order-independent candidate order per bin."""
    pools: dict[int | None, list[Candidate]] = {}
    for article in sorted(source.articles, key=lambda a: (a.title, a.pageid or 0)):
        if binning is None:
            pools.setdefault(None, []).append(Candidate(article, None, None))
        elif article.title in binning.bins:
            b = binning.bins[article.title]
            pools.setdefault(b, []).append(Candidate(article, b, binning.scores[article.title]))
    for b, pool in pools.items():
        random.Random(f"{seed}:pool:{b}").shuffle(pool)
    return pools


def _quotas(n: int, bins: list[int | None]) -> dict[int | None, int]:
    base, extra = divmod(n, len(bins))
    return {b: base + (1 if i < extra else 0) for i, b in enumerate(bins)}


def generate(
    source: LoadedSource, client: ModelClient, settings: Settings, centrality: tuple[str, str] | None
) -> tuple[list[dict], Report, Binning | None]:
    """Run the pipeline; returns rows sorted by bin, the report and the binning used."""
    if settings.n < 1:
        raise HallubenchError("--n must be at least 1")
    binning = bin_by_centrality([a.title for a in source.articles], load_centrality(*centrality), N_BINS) if centrality else None
    pools = _pools(source, binning, settings.seed)
    bins: list[int | None] = list(range(N_BINS)) if binning else [None]
    report = Report(quotas=_quotas(settings.n, bins))
    available = sum(len(p) for p in pools.values())
    if available < settings.n and not settings.allow_shortfall:
        raise HallubenchError(f"the source has {available} usable pages, fewer than --n {settings.n}")
    accepted: dict[int | None, list[Candidate]] = {b: [] for b in bins}
    seen_questions: set[str] = set()
    cursor = {b: 0 for b in bins}
    while True:
        # Oversample by the acceptance rate seen so far (deterministic given the cached responses).
        tried, kept = sum(report.tried.values()), sum(len(a) for a in accepted.values())
        rate = max(kept / tried, 0.1) if tried else 0.5
        wave: list[Candidate] = []
        for b in bins:
            missing = report.quotas[b] - len(accepted[b])
            if missing <= 0:
                continue
            take = pools.get(b, [])[cursor[b] : cursor[b] + math.ceil(missing / rate)]
            cursor[b] += len(take)
            wave.extend(take)
        if not wave:
            break
        _run_wave(wave, client, settings, report)
        for cand in wave:
            report.tried[cand.difficulty] += 1
            if not cand.answer:
                continue
            key = cand.question.lower()
            if key in seen_questions:
                report.rejected["duplicate_question"] += 1
                continue
            if len(accepted[cand.difficulty]) < report.quotas[cand.difficulty]:
                seen_questions.add(key)
                accepted[cand.difficulty].append(cand)
    short = {b: (len(accepted[b]), report.quotas[b]) for b in bins if len(accepted[b]) < report.quotas[b]}
    if short and not settings.allow_shortfall:
        detail = ", ".join(f"bin {b}: {got}/{want}" for b, (got, want) in short.items())
        raise HallubenchError(f"the source ran out of pages before every bin met its quota ({detail}); add pages, lower --n or pass --allow-shortfall")
    rows = []
    for b in bins:
        report.accepted[b] = len(accepted[b])
        for cand in accepted[b]:
            rows.append({
                "id": "pwqa-" + hashlib.sha1(f"{cand.article.title}\n{cand.question}".encode()).hexdigest()[:12],
                "question": cand.question,
                "answer": cand.answer,
                "title": cand.article.title,
                "reference": cand.reference,
                "difficulty": cand.difficulty,
                "h_score": cand.h_score,
                "pageid": cand.article.pageid,
                "revid": cand.article.revid,
                "chunk_index": cand.chunk_index,
            })
    return rows, report, binning


def _run_wave(wave: list[Candidate], client: ModelClient, settings: Settings, report: Report) -> None:
    """Question then answer for every candidate of a wave, in two batched passes."""
    for cand in wave:
        chunks = chunk_article(cand.article.markdown, settings.min_tokens, settings.max_tokens)
        cand.chunk_index = random.Random(f"{settings.seed}:chunk:{cand.article.title}").randrange(len(chunks))
        cand.reference = chunks[cand.chunk_index]
    questions = client.complete_or_raise(
        [
            ChatRequest.from_messages(
                _question_messages(c.article.title, c.reference),
                temperature=settings.question_temperature,
                top_p=settings.question_top_p,
                max_tokens=64,
                seed=_seed_for(settings.seed, "question", c.article.title),
            )
            for c in wave
        ],
        desc="generate: questions",
    )
    asked = []
    for cand, text in zip(wave, questions):
        question = parse_question(text)
        if question is None:
            report.rejected["no_question"] += 1
        else:
            cand.question = question
            asked.append(cand)
    answers = client.complete_or_raise(
        [ChatRequest.from_messages(_answer_messages(c.reference, c.question), temperature=0.0, max_tokens=32) for c in asked],
        desc="generate: answers",
    )
    for cand, text in zip(asked, answers):
        answer, reason = parse_answer(text)
        if answer is None:
            report.rejected[reason] += 1
        else:
            cand.answer = answer


def card_for(source: LoadedSource, settings: Settings, generator_spec: str, report: Report, binning: Binning | None, centrality: tuple[str, str] | None) -> CardInfo:
    """The dataset card: provenance, parameters, counts per bin and rejections."""
    label = lambda b: "unbinned" if b is None else str(b)  # noqa: E731
    table = "| bin | quota | pages tried | accepted |\n|---|---|---|---|\n" + "\n".join(
        f"| {label(b)} | {q} | {report.tried[b]} | {report.accepted[b]} |" for b, q in report.quotas.items()
    )
    rejections = "\n".join(f"- {reason}: {count}" for reason, count in sorted(report.rejected.items())) or "- none"
    if binning:
        difficulty = (
            f"Bins 0 (least central, hardest) to 9 (most central) are deciles of WikiRank harmonic centrality "
            f"over the {len(binning.scores)} source pages that have a score (titles: `{centrality[0]}`, scores: "
            f"`{centrality[1]}`). Edges: {', '.join(f'{e:.6g}' for e in binning.edges)}. "
            f"{len(binning.unmatched)} pages had no score and were left out of the bins."
        )
    else:
        difficulty = (
            "No centrality data was given, so the set is **not binned by difficulty** (`difficulty` is null). "
            "Pass --wikirank-titles/--wikirank-scores for the paper's 10 harmonic-centrality bins."
        )
    return CardInfo(
        pretty_name="PreciseWikiQA (hallubench dynamic test set)",
        license=source.license,
        task_categories=["question-answering"],
        summary=(
            "Short, fact-seeking questions generated from Wikipedia passages, following HalluLens' PreciseWikiQA "
            "(Bang et al., 2025, section 3.1). Evaluate with the lm-eval task `precisewikiqa` from hallubench."
        ),
        sections={
            "Source": f"- source: {source.name}\n- revision: {source.revision or 'n/a'}\n- pages available: {len(source.articles)}",
            "Generation": (
                f"- generator: `{generator_spec}`\n- seed: {settings.seed}\n- requested: {settings.n}\n"
                f"- chunks: {settings.min_tokens}-{settings.max_tokens} tokens (word/punctuation count)\n"
                f"- question sampling: temperature {settings.question_temperature}, top_p {settings.question_top_p}; answers greedy\n"
                f"- filters: unanswerable, answers over {MAX_ANSWER_WORDS} words, duplicate questions\n"
                f"- date: {generation_date()}"
            ),
            "Difficulty": difficulty,
            "Counts per bin": table,
            "Rejections": rejections,
            "Columns": (
                "`id`, `question`, `answer` (gold, from the reference alone), `title`, `reference` (the chunk), "
                "`difficulty` (bin or null), `h_score` (harmonic centrality or null), `pageid`, `revid`, `chunk_index`."
            ),
        },
    )


def add_arguments(parser) -> None:
    from generators.sources.articles import SOURCE_HELP

    parser.add_argument("--source", required=True, help=SOURCE_HELP)
    parser.add_argument("--n", type=int, required=True, help="questions in the set (split evenly over the bins)")
    parser.add_argument("--generator", required=True, help="backend spec of the question/answer generator")
    parser.add_argument("--wikirank-titles", help="WikiRank titles file (path or URL), e.g. enwiki-2024.titles")
    parser.add_argument("--wikirank-scores", help="WikiRank harmonic centrality file (path or URL), parallel to the titles")
    parser.add_argument("--min-chunk-tokens", type=int, default=200)
    parser.add_argument("--max-chunk-tokens", type=int, default=500)
    parser.add_argument("--allow-shortfall", action="store_true", help="write a smaller set (reported in the card) instead of failing")


def run(args, client: ModelClient) -> tuple[list[dict], CardInfo]:
    from generators.sources.articles import load_articles

    if bool(args.wikirank_titles) != bool(args.wikirank_scores):
        raise HallubenchError("--wikirank-titles and --wikirank-scores go together")
    centrality = (args.wikirank_titles, args.wikirank_scores) if args.wikirank_titles else None
    settings = Settings(
        n=args.n, seed=args.seed, min_tokens=args.min_chunk_tokens, max_tokens=args.max_chunk_tokens,
        allow_shortfall=args.allow_shortfall,
    )
    source = load_articles(args.source)
    rows, report, binning = generate(source, client, settings, centrality)
    return rows, card_for(source, settings, client.public_spec, report, binning, centrality)
