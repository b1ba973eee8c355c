"""The PreciseWikiQA dataset card: provenance, method (the offline stand-in when used), parameters, the filters,
counts per difficulty bin and rejections."""

from __future__ import annotations

import statistics

from hallubench_generators.common.articles import OFFLINE_SOURCE, LoadedSource
from hallubench_generators.common.chunking import count_tokens
from hallubench_generators.common.difficulty import Binning
from hallubench_generators.common.publishing import CardInfo, generation_date
from hallubench_generators.precisewikiqa.checks import MAX_ANSWER_WORDS
from hallubench_generators.precisewikiqa.pipeline import Report, Settings

OFFLINE_WRITER = "offline templates (generators/common/offline_questions.py, no LLM)"
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
