"""PopQA as an extrinsic hallucination proxy (Mallen et al., 2023; HalluLens section 5.2): long-tail entity questions
graded three ways (hallu_metrics.short_answer_qa), which adds the refusal measure HalluLens asks for; gold = any
of ``possible_answers``. Results per popularity bin: floor(log10(s_pop)), s_pop = the subject's Wikipedia page
views, so bin k holds subjects with 10^k to 10^(k+1) - 1 views (0 = least popular = hardest).
The test set's loaders are in ``data``."""

from __future__ import annotations

from hallu_metrics import short_answer_qa as qa
from hallu_metrics.benchmarks.popqa.data import popularity_bin, read_official, to_docs
from hallu_metrics.contract import About, Benchmark, Breakdown

__all__ = ["BENCHMARK", "popularity_bin", "read_official", "to_docs"]

BENCHMARK = Benchmark(
    **qa.GRADED_BENCHMARK,
    name="popqa_hallu",
    paper="PopQA (Mallen et al., 2023); HalluLens (Bang et al., 2025) section 5.2",
    column_types={"question": "string", "possible_answers": "string", "s_pop": "int64", "prop": "string"},
    doc_columns=("id", "question", "golds", "prop", "s_pop", "popularity_bin"),
    to_docs=to_docs,
    breakdowns=(Breakdown("popularity_bin", "ordered", "popularity bin: floor(log10 s_pop), 0 = least popular"),
                Breakdown("prop", "category", "relation")),
    read_official=read_official,
    nullable=("popularity_bin", "s_pop"),
    about=About(paper_title="When Not to Trust Language Models: Investigating Effectiveness of Parametric and "
                "Non-Parametric Memories", paper_url="https://arxiv.org/abs/2212.10511", section="section 5.2",
                network=True, gpu=False, weights=False, judge=True, runtime="fast", offline=False),
)
