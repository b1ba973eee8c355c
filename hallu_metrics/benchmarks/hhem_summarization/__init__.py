"""HHEM leaderboard summarization (HalluLens section 4.1; Vectara's hallucination leaderboard).

The model under test summarises each source document; a consistency scorer (HHEM-2.1-Open by default) gives
P(consistent) for (document, summary). As on the leaderboard: a summary is valid with at least 5 words and is
not a refusal; the hallucination rate is the share of valid summaries scored below 0.5; the answer rate is
valid summaries / documents; the average summary length counts words of valid summaries.

The prompt in ``prompts``, the consistency check and the validity rule in ``checks``, the judging in ``chain``,
metrics in ``metrics``, the leaderboard's documents in ``data``; the ``evaluate`` module is ``hhem_summarization/``.
The LLM-judge path uses the shared faithfulness rubric (``hallu_metrics.rubric``) and the classifier scorers
are the shared ``hallu_metrics.scorers``.
"""

from __future__ import annotations

from hallu_metrics.benchmarks.hhem_summarization.chain import judge_item, summary_record
from hallu_metrics.benchmarks.hhem_summarization.checks import CONSISTENCY, DEFAULT_SCORER_SPEC, NAME, is_valid_summary
from hallu_metrics.benchmarks.hhem_summarization.data import (
    LEADERBOARD_FILE,
    default_scorer_available,
    read_official,
    to_docs,
)
from hallu_metrics.benchmarks.hhem_summarization.metrics import cut_summary, sample_metrics
from hallu_metrics.contract import About, Benchmark, Metric, unreadable_share
from hallu_metrics.rubric import RUBRIC

__all__ = [
    "BENCHMARK", "CONSISTENCY", "DEFAULT_SCORER_SPEC", "LEADERBOARD_FILE", "NAME", "default_scorer_available",
    "is_valid_summary", "judge_item", "read_official", "sample_metrics", "summary_record", "to_docs",
]

BENCHMARK = Benchmark(
    name=NAME,
    family="hallulens_intrinsic",
    paper="HalluLens (Bang et al., 2025) section 4.1; Vectara hallucination leaderboard",
    column_types={"source": "string"},
    doc_columns=("id", "source", "prompt"),
    to_docs=to_docs,
    metrics=(
        Metric("hallucination_rate", "rate", False, "valid summaries scored below 0.5 / valid summaries",
               conditional=True),
        Metric("factual_consistency_rate", "rate", True, "1 - hallucination_rate", conditional=True),
        Metric("answer_rate", "rate", True, "valid summaries (>= 5 words, not a refusal) / documents"),
        Metric("average_summary_length", "count", None, "words per valid summary", scale=(0.0, 1000.0),
               conditional=True),
        unreadable_share("valid summaries", "documents", note="; all of them with judge=none"),
        Metric("scorer_cut_rate", "rate", False, "scored summaries whose (document, summary) the classifier did not "
               "see whole (part cut to fit its max_length) / summaries scored by a classifier", conditional=True),
    ),
    judge_item=judge_item,
    checks=(CONSISTENCY, RUBRIC),  # a classifier (or rule) judge, or an LLM judge
    sample_metrics=sample_metrics,
    headline=("hallucination_rate", "factual_consistency_rate", "answer_rate", "average_summary_length"),
    generator=None,
    evaluate_module=NAME,
    # weights: HHEM-2.1-Open, not shipped
    about=About(paper_title="HalluLens: LLM Hallucination Benchmark", paper_url="https://arxiv.org/abs/2504.17550",
                section="section 4.1", network=True, gpu=False, weights=True, judge=False, runtime="slow",
                offline=False),
    default_judge=DEFAULT_SCORER_SPEC,
    read_official=read_official,
    extra_summary=cut_summary,
    outcomes=("consistent", "hallucinated", "invalid", "unscored"),
)
