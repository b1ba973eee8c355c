"""The PreciseWikiQA pipeline (HalluLens 3.1.2): seeded page pools per difficulty bin, one reference chunk per page,
a question and its answer written for each (by the LLM in two batched passes, or by the offline templates), the
item filters, and top-ups until each bin's quota is met."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field

from hallubench.core.backends import ModelClient
from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import derived_seed, seeded_rng
from hallubench_generators.common.articles import Article, LoadedSource
from hallubench_generators.common.chunking import chunk_article
from hallubench_generators.common.difficulty import (
    Binning,
    bin_by_centrality,
    binned_pools,
    load_centrality,
    split_quota,
)
from hallubench_generators.common.offline_questions import pick_question
from hallubench_generators.common.question_checks import rejection_reason
from hallubench_generators.common.quota_fill import PageQuestionSettings, QuotaReport, check_shortfall, fill_quotas
from hallubench_generators.precisewikiqa.checks import parse_answer, parse_question
from hallubench_generators.precisewikiqa.prompts import answer_request, question_request

N_BINS = 10


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
    """Template questions (hallubench_generators.common.offline_questions), one drawn per reference."""
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
