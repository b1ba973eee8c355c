"""PreciseWikiQA test-set generator (HalluLens 3.1): pick pages per difficulty bin, pick one
chunk, ask the generator for one short-answer question, answer it separately from the chunk
alone, reject unanswerable / long answers and unusable items (hallubench_generators.question_checks), and top up
each bin from further pages until its quota is met or the source runs out. ``--question-writer offline``
replaces the LLM by template questions (hallubench_generators.offline_questions) for machines without one."""

from __future__ import annotations

import hashlib
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import datasets

from hallu_metrics.precisewikiqa import BENCHMARK
from hallubench.backends import ChatRequest, ModelClient
from hallubench.errors import HallubenchError
from hallubench.seeding import derived_seed, seeded_rng
from hallubench_generators.chunking import chunk_article, count_tokens
from hallubench_generators.difficulty import Binning, bin_by_centrality, binned_pools, load_centrality, split_quota
from hallubench_generators.offline_questions import pick_question
from hallubench_generators.protocol import sent
from hallubench_generators.publishing import CardInfo, generation_date
from hallubench_generators.question_checks import rejection_reason
from hallubench_generators.quota_fill import PageQuestionSettings, QuotaReport, check_shortfall, fill_quotas
from hallubench_generators.sources.articles import OFFLINE_SOURCE, Article, LoadedSource

CLIENT_OPTION = "generator"  # the question writer; empty with --question-writer offline
N_BINS = 10
MAX_ANSWER_WORDS = 10

FEATURES = datasets.Features({
    **BENCHMARK.columns,
    "h_score": datasets.Value("float64"),
    "pageid": datasets.Value("int64"),
    "revid": datasets.Value("int64"),
    "chunk_index": datasets.Value("int32"),
})


@dataclass
class Settings(PageQuestionSettings):
    """Generation parameters (HalluLens 3.1.2 defaults: chunks of 200-500 tokens)."""

    min_tokens: int = 200
    max_tokens: int = 500


@dataclass
class Candidate:
    article: Article
    difficulty: int | None
    h_score: float | None
    chunk_index: int = 0
    reference: str = ""
    question: str = ""
    answer: str = ""
    kind: str = "llm"


@dataclass
class Report(QuotaReport):
    """Counts for the dataset card, plus questions per offline template."""

    kinds: Counter = field(default_factory=Counter)


def _question_messages(title: str, reference: str) -> list[dict[str, str]]:
    return [
        {
            "role": "user",
            "content": (
                f'Here is an excerpt from the Wikipedia article "{title}":\n\n{reference}\n\n'
                f"Write ONE factual question about {title} that\n"
                "- can be answered from this excerpt alone,\n"
                "- is objective (no opinions),\n"
                "- names its subject fully, so it makes sense without the excerpt,\n"
                "- has a single short answer: a word, a name, a number, a date or a short phrase.\n"
                "Reply with the question only."
            ),
        }
    ]


def _answer_messages(reference: str, question: str) -> list[dict[str, str]]:
    return [
        {
            "role": "user",
            "content": (
                f"Reference text:\n{reference}\n\nQuestion: {question}\n\n"
                "Using only the reference text, give the answer as a word or a short phrase and nothing else. "
                "If the reference text does not answer the question, reply with the single word: unanswerable"
            ),
        }
    ]


def question_request(title: str, reference: str, settings: Settings, seed: int | None = None) -> ChatRequest:
    """The question writer's request (sampled: HalluLens' temperature and top_p)."""
    return ChatRequest.from_messages(_question_messages(title, reference), temperature=settings.question_temperature,
                                     top_p=settings.question_top_p, max_tokens=64, seed=seed)


def answer_request(reference: str, question: str) -> ChatRequest:
    """The greedy answerability request: the question answered from the reference alone."""
    return ChatRequest.from_messages(_answer_messages(reference, question), temperature=0.0, max_tokens=32)


def prompts() -> dict[str, Any]:
    """The LLM writer's two requests on placeholder inputs (the offline writer sends nothing)."""
    return {"question": sent(question_request("{title}", "{reference}", Settings(n=1, seed=0))),
            "answer": sent(answer_request("{reference}", "{question}"))}


_PREFIX = re.compile(r"^\s*(?:\*\*)?(?:question|q|answer|a)\s*[:.)-]\s*(?:\*\*)?\s*", re.IGNORECASE)
_UNANSWERABLE = re.compile(
    r"unanswerable|not answerable|cannot be answered|can't be answered|not (?:mentioned|stated|provided)", re.IGNORECASE
)


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
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None, "empty_answer"
    answer = _PREFIX.sub("", re.sub(r"^\s*(?:\d+[.)]|[-*])\s+", "", lines[0])).strip().strip("*\"'` ")
    answer = answer.rstrip(".").strip()
    if not answer:
        return None, "empty_answer"
    if _UNANSWERABLE.search(answer) or answer.lower().startswith("unfortunately"):
        return None, "unanswerable"
    if len(answer.split()) > MAX_ANSWER_WORDS:
        return None, "answer_too_long"
    return answer, None


def generate(
    source: LoadedSource, client: ModelClient | None, settings: Settings, centrality: tuple[str, str] | None
) -> tuple[list[dict], Report, Binning | None]:
    """Run the pipeline (``client`` is None for the offline writer); returns rows sorted by bin, the report
    and the binning used."""
    if settings.n < 1:
        raise HallubenchError("--n must be at least 1")
    binning = None
    if centrality:
        binning = bin_by_centrality([a.title for a in source.articles], load_centrality(*centrality), N_BINS)
    pools = binned_pools(source.articles, binning, settings.seed, Candidate)
    bins: list[int | None] = list(range(N_BINS)) if binning else [None]
    report = Report(quotas=split_quota(settings.n, bins))
    available = sum(len(p) for p in pools.values())
    if available < settings.n and not settings.allow_shortfall:
        raise HallubenchError(f"the source has {available} usable pages, fewer than --n {settings.n}")

    def write_wave(wave: list[Candidate]) -> list[tuple[Candidate, str]]:
        _run_wave(wave, client, settings, report)
        written = []
        for cand in wave:
            if not cand.answer:
                continue
            reason = rejection_reason(cand.question, cand.answer, cand.article.title, cand.reference)
            if reason:
                report.rejected[reason] += 1
            else:
                written.append((cand, cand.question.lower()))
        return written

    accepted = fill_quotas(pools, report, write_wave, lambda cand: cand.difficulty)
    check_shortfall(report, settings, lambda b: f"bin {b}", "bin")
    rows = []
    for b in bins:
        for cand in accepted[b]:
            report.kinds[cand.kind] += 1
            rows.append(
                {
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
                }
            )
    return rows, report, binning


def _run_wave(wave: list[Candidate], client: ModelClient | None, settings: Settings, report: Report) -> None:
    """Pick each candidate's reference chunk, then write its question and answer."""
    for cand in wave:
        chunks = chunk_article(cand.article.markdown, settings.min_tokens, settings.max_tokens)
        cand.chunk_index = seeded_rng(settings.seed, "chunk", cand.article.title).randrange(len(chunks))
        cand.reference = chunks[cand.chunk_index]
    if client is None:
        _write_offline(wave, settings, report)
    else:
        _write_with_llm(wave, client, settings, report)


def _write_offline(wave: list[Candidate], settings: Settings, report: Report) -> None:
    """Template questions (hallubench_generators.offline_questions), one drawn per reference."""
    for cand in wave:
        rng = seeded_rng(settings.seed, "offline", cand.article.title)
        written = pick_question(cand.article.title, cand.reference, rng)
        if written is None:
            report.rejected["no_template_question"] += 1
        else:
            cand.question, cand.answer, cand.kind = written.question, written.answer, written.kind


def _write_with_llm(wave: list[Candidate], client: ModelClient, settings: Settings, report: Report) -> None:
    """Question then answer for every candidate of a wave, in two batched passes (HalluLens 3.1.2)."""
    questions = client.complete_or_raise(
        [question_request(c.article.title, c.reference, settings,
                          derived_seed(settings.seed, "question", c.article.title)) for c in wave],
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
    answers = client.complete_or_raise([answer_request(c.reference, c.question) for c in asked],
                                       desc="generate: answers")
    for cand, text in zip(asked, answers):
        answer, reason = parse_answer(text)
        if answer is None:
            report.rejected[reason] += 1
        else:
            cand.answer = answer


OFFLINE_WRITER = "offline templates (generators/offline_questions.py, no LLM)"
_FILTERS = (
    f"unanswerable, answers over {MAX_ANSWER_WORDS} words, questions that are not self-contained (refer to "
    "'the text' / 'this excerpt', a bare demonstrative, a pronoun before any name), questions that do not name "
    "the page they ask about, answers that are not a span (or close match) of the reference, answers made of the "
    "question's own words, duplicate questions"
)
_OFFLINE_METHOD = (
    "An **offline stand-in** for HalluLens' LLM-written questions, for machines without a capable LLM: each "
    "question is a template filled from the wording of its reference, so the set is easier than the paper's "
    "and its numbers are not comparable with HalluLens'. Templates: `title` (the lead's defining sentence "
    '"X is the ..." asked back as "What is the name of the ...?", answer X), `year` ("X was founded ... in '
    '1850" -> "In what year was X founded ...?"), `place` ("X was born / is located in P" -> "Where ...?"). '
    "Each answer is a span of the reference and each question passed the filters above. See docs/precisewikiqa.md "
    "for the method and a hand check."
)


def _length_summary(references: list[str], settings: Settings) -> str:
    """Real reference lengths of the set, next to the chunking bounds."""
    if not references:
        return f"chunk bounds {settings.min_tokens}-{settings.max_tokens} tokens; no references"
    tokens = [count_tokens(r) for r in references]
    words = [len(r.split()) for r in references]
    text = (
        f"chunk bounds {settings.min_tokens}-{settings.max_tokens} tokens (words + punctuation); references in this "
        f"set: {min(tokens)}-{max(tokens)} tokens (median {statistics.median(tokens):g}), "
        f"{min(words)}-{max(words)} words"
    )
    if max(tokens) < settings.min_tokens:
        text += " - every reference is a whole source text shorter than the chunk minimum"
    return text


def card_for(
    source: LoadedSource,
    source_option: str,
    settings: Settings,
    writer: str,
    report: Report,
    binning: Binning | None,
    centrality: tuple[str, str] | None,
    rows: list[dict],
) -> CardInfo:
    """The dataset card: provenance, method, parameters, counts per bin and rejections."""
    label = lambda b: "unbinned" if b is None else str(b)
    table = "| bin | quota | pages tried | accepted |\n|---|---|---|---|\n" + "\n".join(
        f"| {label(b)} | {q} | {report.tried[b]} | {report.accepted[b]} |" for b, q in report.quotas.items()
    )
    rejections = "\n".join(f"- {reason}: {count}" for reason, count in sorted(report.rejected.items())) or "- none"
    offline_corpus = source_option == OFFLINE_SOURCE
    if binning:
        difficulty = (
            f"Bins 0 (least central, hardest) to 9 (most central) are deciles of WikiRank harmonic centrality "
            f"over the {len(binning.scores)} source pages that have a score (titles: `{centrality[0]}`, scores: "
            f"`{centrality[1]}`). Edges: {', '.join(f'{e:.6g}' for e in binning.edges)}. "
            f"{len(binning.unmatched)} pages had no score and were left out of the bins."
        )
    else:
        difficulty = (
            "No centrality data was given, so the set is **not binned by difficulty** (`difficulty` and `h_score` "
            "are null). Pass --wikirank-titles/--wikirank-scores for the paper's 10 harmonic-centrality bins"
            + (" (WikiRank's files are not available offline)." if offline_corpus else ".")
        )
    ids = ""
    if all(r["pageid"] is None for r in rows):
        ids = " `pageid` and `revid` are null: the source does not carry them" + (
            " (the offline Vital Articles summaries hold title, lead text, description and topic only)."
            if offline_corpus
            else "."
        )
    generation = [
        f"- question writer: {writer}",
        f"- seed: {settings.seed}",
        f"- requested: {settings.n}",
        f"- references: {_length_summary([r['reference'] for r in rows], settings)}",
    ]
    if writer != OFFLINE_WRITER:
        generation.append(
            f"- question sampling: temperature {settings.question_temperature}, top_p {settings.question_top_p}; "
            "answers greedy"
        )
    generation += [f"- filters: {_FILTERS}", f"- date: {generation_date()}"]
    sections = {
        "Source": (
            f"- source: {source.name}\n- revision: {source.revision or 'n/a'}\n"
            f"- pages available: {len(source.articles)}"
        ),
        "Generation": "\n".join(generation),
    }
    if writer == OFFLINE_WRITER:
        kinds = ", ".join(f"{kind}: {count}" for kind, count in sorted(report.kinds.items())) or "none"
        sections["Method"] = f"{_OFFLINE_METHOD}\n\nQuestions per template: {kinds}."
    sections |= {
        "Difficulty": difficulty,
        "Counts per bin": table,
        "Rejections": rejections,
        "Columns": (
            "`id`, `question`, `answer` (gold, from the reference alone), `title`, `reference` (the chunk), "
            "`difficulty` (bin or null), `h_score` (harmonic centrality or null), `pageid`, `revid`, `chunk_index`."
            + ids
        ),
    }
    summary = (
        "Short, fact-seeking questions generated from Wikipedia passages, following HalluLens' PreciseWikiQA "
        "(Bang et al., 2025, section 3.1). Evaluate with the lm-eval task `precisewikiqa` from hallubench."
    )
    if writer == OFFLINE_WRITER:
        summary += " This set is an offline stand-in with template questions (see Method), easier than the paper's."
    return CardInfo(
        pretty_name="PreciseWikiQA (hallubench dynamic test set)",
        license=source.license,
        task_categories=["question-answering"],
        summary=summary,
        sections=sections,
    )


def add_arguments(parser) -> None:
    from hallubench_generators.sources.articles import SOURCE_HELP

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
    from hallubench_generators.sources.articles import load_articles

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
