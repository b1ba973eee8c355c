"""LongWiki (HalluLens 3.2): long-form answers checked claim by claim against Wikipedia passages.

Per response (section 3.2.2): refusal evaluation (the ``knowledgeable`` check: True = it tries to answer); for
answers that were not refused, the response is split into sentences, claims are extracted from each sentence's
snippet (fanned out), de-duplicated, and each claim is checked against its top passages from the knowledge store
(retrieval in the CPU lane, verification fanned out). Metrics (section 3.2.1): per response precision = supported /
claims, recall@K = min(supported / K, 1), F1@K their harmonic mean; macro-averaged over responses that are neither
refused nor claim-less. The false refusal rate and the no-claim rate are shares of the responses whose verdicts
could all be read (an unjudged response counts only in ``judge_unparseable_rate``). Roles: ``judge``
(knowledgeable), ``judge_claims`` (extraction), ``judge_verify`` (verification); each falls back to ``judge``.

The package holds no prompts or checks of its own: every check the chain asks (``KNOWLEDGEABLE``,
``CLAIM_EXTRACTION``, ``VERIFICATION``) and its prompt is in the shared long-form layer (hallu_metrics.longform:
refusal, claims, verification), which WildHallucinations uses too. Here: the run settings (``options``), the
evidence store and retriever (``evidence``), the judging chain (``chain``), the metrics (``metrics``) and the lm-eval
docs with K (``data``); the ``evaluate`` module is ``hallulens_longwiki/``.
"""

from __future__ import annotations

from hallu_metrics.benchmarks.longwiki.chain import judge_item
from hallu_metrics.benchmarks.longwiki.data import with_k
from hallu_metrics.benchmarks.longwiki.evidence import Evidence
from hallu_metrics.benchmarks.longwiki.metrics import (
           OUTCOMES,
           claim_totals,
           evidence_warnings,
           f1_at_k,
           precision,
           recall_at_k,
           sample_metrics,
)
from hallu_metrics.benchmarks.longwiki.options import OPTIONS, claim_k
from hallu_metrics.contract import About, Benchmark, Breakdown, Metric, unreadable_share
from hallu_metrics.longform.claims import CLAIM_EXTRACTION
from hallu_metrics.longform.refusal import KNOWLEDGEABLE
from hallu_metrics.longform.verification import VERIFICATION

__all__ = ["BENCHMARK", "KNOWLEDGEABLE", "OPTIONS", "OUTCOMES", "Evidence", "claim_k", "claim_totals", "f1_at_k",
           "judge_item", "precision", "recall_at_k", "sample_metrics", "with_k"]

BENCHMARK = Benchmark(
    name="longwiki",
    family="hallulens",
    paper="HalluLens (Bang et al., 2025) section 3.2",
    column_types={"id": "string", "prompt": "string", "title": "string", "reference": "string", "level": "int32"},
    metrics=(
        Metric("false_refusal_rate", "rate", False, "refused responses / judged responses", conditional=True),
        Metric("recall_at_k", "rate", True, "mean of min(supported / K, 1) over responses with claims (K=32 default)",
               conditional=True, proportion=False),
        Metric("precision", "rate", True, "mean of supported / claims over responses with claims", conditional=True,
               proportion=False),
        Metric("f1_at_k", "rate", True, "mean of the harmonic mean of precision and recall@K over responses with "
               "claims", conditional=True, proportion=False),
        Metric("no_claim_rate", "rate", False, "responses not refused but without any verifiable claim / judged "
               "responses", conditional=True),
        Metric("abstain_rate_reference", "rate", False, "the HalluLens reference code's abstain ratio: refused or "
               "claim-less responses / judged responses (= false_refusal_rate + no_claim_rate)", conditional=True),
        unreadable_share(),
    ),
    judge_item=judge_item,
    sample_metrics=sample_metrics,
    breakdowns=(Breakdown("level", "ordered", "WikiRank level (5 = least central of the easier half, 9 = most)"),),
    headline=("false_refusal_rate", "recall_at_k", "precision", "f1_at_k", "abstain_rate_reference",
              "judge_unparseable_rate"),
    generator="longwiki",
    evaluate_module="hallulens_longwiki",
    # weights: the retrieval embeddings
    about=About(paper_title="HalluLens: LLM Hallucination Benchmark", paper_url="https://arxiv.org/abs/2504.17550",
                section="section 3.2", network=False, gpu=False, weights=True, judge=True, runtime="slow",
                offline=True),
    judge_roles=("judge", "judge_claims", "judge_verify"),
    options=OPTIONS,
    checks=(KNOWLEDGEABLE, CLAIM_EXTRACTION, VERIFICATION),
    to_docs=with_k,
    extra_summary=claim_totals,
    run_warnings=evidence_warnings,
    outcomes=OUTCOMES,
    nullable=("level",),
)
