"""SimpleQA as an extrinsic hallucination proxy (Wei et al., 2024; HalluLens section 5.2): the question is the only
user turn; the three-way grade (hallu_metrics.short_answer_qa) gives hallucination, false refusal and correct
rates plus SimpleQA's accuracy given attempted and F-score, overall and per topic / answer type. The test set's
loaders are in ``data``."""

from __future__ import annotations

from hallu_metrics import short_answer_qa as qa
from hallu_metrics.benchmarks.simpleqa.data import OFFICIAL_FILE, read_official, to_docs
from hallu_metrics.contract import About, Benchmark, Breakdown

__all__ = ["BENCHMARK", "OFFICIAL_FILE", "read_official", "to_docs"]


BENCHMARK = Benchmark(
    **qa.GRADED_BENCHMARK,
    name="simpleqa_hallu",
    paper="SimpleQA (Wei et al., 2024); HalluLens (Bang et al., 2025) section 5.2",
    column_types={"metadata": "string", "problem": "string", "answer": "string"},
    doc_columns=("id", "question", "answer", "golds", "topic", "answer_type"),
    to_docs=to_docs,
    breakdowns=(Breakdown("topic", "category", "topic"), Breakdown("answer_type", "category", "answer type")),
    read_official=read_official,
    about=About(paper_title="Measuring short-form factuality in large language models",
                paper_url="https://arxiv.org/abs/2411.04368", section="section 5.2", network=True, gpu=False,
                weights=False, judge=True, runtime="fast", offline=False),
)
