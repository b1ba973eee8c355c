"""ANAH 2.0 with reference documents (Gu et al., 2024; HalluLens section 4.2).

The model answers a question given a reference document. Each sentence of the answer is annotated in one chained
three-turn conversation, as the ANAH-v2 annotator does: (1) does the sentence state verifiable facts? (2) extract the
reference information relevant to it, or say there is none; (3) label it No Hallucination / Contradictory /
Unverifiable against that information. No facts ends the chain ("nofact"); no reference information makes the
sentence Unverifiable without turn 3. Sentences of one answer are annotated concurrently.

The official scorer pools sentences: hallucination rate = (contradictory + unverifiable) / all sentences, sentences
without facts included. It counts a sentence whose label cannot be read as not hallucinated; here such sentences are
``unparseable``: ``hallucination_rate`` leaves them out (and reports their share). ``hallucination_rate_official``
replays the official eval.py on the same judge's replies (its flow, its reading of each reply, its aggregation;
:func:`official_replay`). Both sentence-pooled rates are ``extra_summary`` numbers (``hallubench score``); the
per-sample metrics, which lm-eval also reports, are the same rates per response (``response_*``).

Prompts in ``prompts``, reply readers (the official eval.py's included) in ``readers``, rule stand-ins in ``rules``,
checks in ``checks``, the chain and the official replay in ``chain``, metrics in ``metrics``, the official file in
``data``; the ``evaluate`` module is ``anah_v2_ref/``.
"""

from __future__ import annotations

from hallu_metrics.benchmarks.anah.chain import judge_item
from hallu_metrics.benchmarks.anah.checks import (
    FACTS,
    FACTS_REPLY,
    HALLUCINATION,
    HALLUCINATION_REPLY,
    REFERENCE,
    REFERENCE_REPLY,
)
from hallu_metrics.benchmarks.anah.data import OFFICIAL_FILE, read_official, to_docs
from hallu_metrics.benchmarks.anah.metrics import (
    HALLUCINATED,
    OFFICIAL_LABELS,
    OUTCOMES,
    SENTENCE_LABELS,
    official_counts,
    pooled_rate,
    response_outcome,
    sample_metrics,
    sentence_summary,
)
from hallu_metrics.benchmarks.anah.prompts import NO_REFERENCE
from hallu_metrics.benchmarks.anah.readers import (
    official_facts,
    official_hallucination,
    official_label,
    official_no_reference,
    parse_facts,
    parse_hallucination,
    parse_reference,
    split_answer,
)
from hallu_metrics.contract import About, Benchmark, Breakdown, Metric, unreadable_share

__all__ = [
    "BENCHMARK", "FACTS", "FACTS_REPLY", "HALLUCINATED", "HALLUCINATION", "HALLUCINATION_REPLY", "NO_REFERENCE",
    "OFFICIAL_FILE", "OFFICIAL_LABELS", "OUTCOMES", "REFERENCE", "REFERENCE_REPLY", "SENTENCE_LABELS",
    "judge_item", "official_counts", "official_facts", "official_hallucination", "official_label",
    "official_no_reference", "parse_facts", "parse_hallucination", "parse_reference", "pooled_rate", "read_official",
    "response_outcome", "sample_metrics", "sentence_summary", "split_answer", "to_docs",
]


BENCHMARK = Benchmark(
    name="anah_v2_ref",
    family="hallulens_intrinsic",
    paper="ANAH-v2 (Gu et al., 2024); HalluLens (Bang et al., 2025) section 4.2",
    column_types={"question": "string", "document": "string", "language": "string"},
    doc_columns=("id", "question", "document", "language", "prompt"),
    to_docs=to_docs,
    metrics=(
        Metric("response_hallucination_rate", "rate", False, "per answer: contradictory or unverifiable sentences "
               "/ judged sentences (no-fact sentences included); mean over answers", conditional=True,
               proportion=False),
        Metric("response_hallucination_rate_official", "rate", False, "per answer: the official eval.py replayed on "
               "the judge's replies (its flow and reading of each first reply): contradictory or unverifiable / all "
               "sentences, its unreadable ones included", conditional=True, proportion=False),
        unreadable_share("per answer: sentences", "sentences", conditional=True, proportion=False),
        Metric("empty_response_rate", "rate", False, "answers without any sentence / N"),
    ),
    judge_item=judge_item,
    checks=(FACTS, REFERENCE, HALLUCINATION, FACTS_REPLY, REFERENCE_REPLY, HALLUCINATION_REPLY),
    sample_metrics=sample_metrics,
    breakdowns=(Breakdown("language", "category", "language"),),
    headline=("response_hallucination_rate", "response_hallucination_rate_official", "judge_unparseable_rate"),
    generator=None,
    evaluate_module="anah_v2_ref",
    about=About(paper_title="ANAH-v2: Scaling Analytical Hallucination Annotation of Large Language Models",
                paper_url="https://arxiv.org/abs/2407.04693", section="section 4.2", network=True, gpu=False,
                weights=False, judge=True, runtime="slow", offline=False),
    read_official=read_official,
    extra_summary=sentence_summary,
    outcomes=OUTCOMES,
)
