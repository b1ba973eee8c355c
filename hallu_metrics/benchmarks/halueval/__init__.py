"""HaluEval (Li et al., 2023): hallucination *recognition*. Each source example yields judged
items with a gold Yes (hallucinated) / No label; the model under test must answer Yes or No.

Patterns, demonstrations and instructions follow the paper's structure (Tables 2, 8, 11, 12,
15, 16) but are written for this project. The same pattern definitions drive the generator.

Prompts, task layouts and patterns in ``prompts``, reply readers in ``readers``, the judged record in ``chain``,
per-sample metrics in ``metrics``, items and docs in ``data``; the ``evaluate`` module is ``halueval_recognition/``.
"""

from __future__ import annotations

from hallu_metrics.benchmarks.halueval.chain import judge_item, read_reply
from hallu_metrics.benchmarks.halueval.data import build_items, items_of
from hallu_metrics.benchmarks.halueval.metrics import sample_metrics
from hallu_metrics.benchmarks.halueval.prompts import TASKS, Pattern, TaskSpec, recognition_prompt, with_article
from hallu_metrics.benchmarks.halueval.readers import extract_judgement, extract_official
from hallu_metrics.contract import About, Benchmark, Breakdown, Metric
from hallubench.core.official_files.halueval import read_records

__all__ = [
    "BENCHMARKS", "TASKS", "Pattern", "TaskSpec", "build_items", "extract_judgement", "extract_official",
    "judge_item", "read_reply", "recognition_prompt", "sample_metrics", "with_article",
]

_METRICS = (
    Metric("accuracy", "rate", True, "replies matching the gold label / N (official extraction; failures wrong)"),
    Metric("accuracy_lenient", "rate", True, "the same with the lenient extraction rule"),
    Metric("accuracy_hallucinated", "rate", True, "accuracy on gold-Yes (hallucinated) items", conditional=True),
    Metric("accuracy_correct", "rate", True, "accuracy on gold-No items", conditional=True),
    Metric("invalid_rate", "rate", False, "replies with both or neither of Yes/No / N"),
)


def _benchmark(spec: TaskSpec) -> Benchmark:
    name = f"halueval_{spec.name}"
    return Benchmark(
        name=name,
        family="halueval",
        paper="HaluEval (Li et al., 2023) section 3, Table 6",
        column_types=dict.fromkeys(spec.columns, "string"),
        doc_columns=("id", "label", "candidate", "pattern", "prompt"),
        to_docs=items_of,
        metrics=_METRICS,
        judge_item=judge_item,
        sample_metrics=sample_metrics,
        breakdowns=(
            Breakdown("label", "category", "gold label"),
            Breakdown("pattern", "category", "pattern", lambda d: d.get("pattern") or None),
        ),
        tasks=(
            name,
            *(f"{name}_{v}" for v in spec.variants() if v != "standard"),
            *((f"{name}_paired",) if not spec.label_field else ()),
        ),
        generator=None if spec.label_field else "halueval",
        evaluate_module="halueval_recognition",
        about=About(paper_title="HaluEval: A Large-Scale Hallucination Evaluation Benchmark for Large Language Models",
                    paper_url="https://arxiv.org/abs/2305.11747", section="section 3", network=True, gpu=False,
                    weights=False, judge=False, runtime="fast", offline=False),
        judge_roles=(),
        answer_readers=(extract_judgement, extract_official),
        read_official=lambda location: read_records(spec.name, location, spec.columns),
        data_aliases=("halueval_data",),
        outcomes=("correct", "wrong", "invalid"),
    )


BENCHMARKS = tuple(_benchmark(spec) for spec in TASKS.values())
