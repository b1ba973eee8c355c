"""The LongWiki pipeline (HalluLens 3.2.2): seeded page pools per level (5-9), one section per page, a prompt and a
mock answer written for each (by the LLM in two batched passes, or by the offline writer), the rejections, and
top-ups until each level's quota is met."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from hallubench.core.backends import ModelClient
from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import seeded_rng
from hallubench_generators.common.articles import Article, LoadedSource
from hallubench_generators.common.chunking import chunk_article
from hallubench_generators.common.difficulty import (
    Binning,
    bin_by_centrality,
    binned_pools,
    load_centrality,
    split_quota,
)
from hallubench_generators.common.quota_fill import PageQuestionSettings, QuotaReport, check_shortfall, fill_quotas
from hallubench_generators.longwiki.checks import mock_answer_problem, parse_prompt
from hallubench_generators.longwiki.offline import offline_prompt
from hallubench_generators.longwiki.prompts import answer_request, prompt_request

N_BINS = 10
LEVELS = (5, 6, 7, 8, 9)


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
