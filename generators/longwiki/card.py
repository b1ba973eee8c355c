"""The LongWiki dataset card: provenance, method (the offline stand-in when used), parameters, the knowledge-store
check, counts per level and rejections."""

from __future__ import annotations

import statistics

from hallubench_generators.common.articles import OFFLINE_SOURCE, LoadedSource
from hallubench_generators.common.chunking import count_tokens
from hallubench_generators.common.difficulty import Binning
from hallubench_generators.common.publishing import CardInfo, generation_date
from hallubench_generators.longwiki.pipeline import Report, Settings

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
