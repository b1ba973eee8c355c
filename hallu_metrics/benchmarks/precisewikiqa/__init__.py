"""PreciseWikiQA (HalluLens 3.1): abstention judge, then correctness judge on attempted answers;
false refusal, hallucination-when-not-refused and correct-answer rates, overall and per bin.

Prompts in ``prompts``, checks in ``checks``, the judging chain (section 3.1.2) in ``chain``, per-sample metrics in
``metrics``; the ``evaluate`` module is ``hallulens_precisewikiqa/``."""

from __future__ import annotations

from hallu_metrics.benchmarks.precisewikiqa.chain import judge_item
from hallu_metrics.benchmarks.precisewikiqa.checks import ABSTENTION, CORRECTNESS, CORRECTNESS_LABELS
from hallu_metrics.benchmarks.precisewikiqa.metrics import OUTCOMES, sample_metrics
from hallu_metrics.contract import About, Benchmark, Breakdown, Metric, unreadable_share

__all__ = ["ABSTENTION", "BENCHMARK", "CORRECTNESS", "CORRECTNESS_LABELS", "OUTCOMES", "judge_item", "sample_metrics"]

BENCHMARK = Benchmark(
    name="precisewikiqa",
    family="hallulens",
    paper="HalluLens (Bang et al., 2025) section 3.1",
    column_types={"id": "string", "question": "string", "answer": "string", "title": "string", "reference": "string",
                  "difficulty": "int32"},
    metrics=(
        Metric("false_refusal_rate", "rate", False, "abstained / judged (samples with readable verdicts)",
               conditional=True),
        Metric(
            "hallucination_rate",
            "rate",
            False,
            "incorrect or unverifiable / attempted (judged, not abstained)",
            conditional=True,
        ),
        Metric("correct_rate", "rate", True, "correct / judged", conditional=True),
        unreadable_share(),
    ),
    judge_item=judge_item,
    checks=(ABSTENTION, CORRECTNESS),
    sample_metrics=sample_metrics,
    breakdowns=(Breakdown("difficulty", "ordered", "difficulty bin (0 = least central page = hardest)"),),
    headline=("false_refusal_rate", "hallucination_rate", "correct_rate", "judge_unparseable_rate"),
    generator="precisewikiqa",
    nullable=("difficulty",),
    evaluate_module="hallulens_precisewikiqa",
    about=About(paper_title="HalluLens: LLM Hallucination Benchmark", paper_url="https://arxiv.org/abs/2504.17550",
                section="section 3.1", network=False, gpu=False, weights=False, judge=True, runtime="fast",
                offline=True),
    outcomes=OUTCOMES,
)
