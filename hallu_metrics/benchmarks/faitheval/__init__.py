"""FaithEval (Ming et al., 2024; HalluLens section 4.3): contextual faithfulness in three tasks.

- unanswerable: the context lacks the answer; the model should say "unknown";
- inconsistent: the context's documents support different answers; the model should say "conflict";
- counterfactual: the context states something against world knowledge (ARC-style multiple choice); the model
  should choose the option the context supports.

Replies are read without a judge. Unanswerable / inconsistent use FaithEval's keyword matching on the normalised
reply: strict (the one keyword) and non-strict (the published keyword list). The reference matches keywords as
substrings, so "not" matches inside "nothing" or "note"; each accuracy is reported both ways (``_official`` =
substring, as published; the unsuffixed metric matches whole words).

Prompts (with the published keyword lists) in ``prompts``, reply readers in ``readers``, judged records in ``chain``,
per-sample metrics in ``metrics``, loaders and docs in ``data``; the ``evaluate`` module is ``faitheval/``.
"""

from __future__ import annotations

from hallu_metrics.benchmarks.faitheval.chain import judge_choice, keyword_judge, read_choice_reply, read_keyword_reply
from hallu_metrics.benchmarks.faitheval.data import choice_docs, keyword_docs, read_official_for
from hallu_metrics.benchmarks.faitheval.metrics import choice_metrics, keyword_metrics
from hallu_metrics.benchmarks.faitheval.prompts import INCONSISTENT, KEYWORD_TASKS, UNANSWERABLE, KeywordTask
from hallu_metrics.benchmarks.faitheval.readers import (
    matches_official,
    matches_words,
    normalize_answer,
    read_choice,
    read_keyword,
)
from hallu_metrics.contract import About, Benchmark, Breakdown, Metric

__all__ = [
    "BENCHMARKS", "COUNTERFACTUAL", "INCONSISTENT", "KEYWORD_TASKS", "UNANSWERABLE", "choice_docs",
    "matches_official", "matches_words", "normalize_answer", "read_choice", "read_choice_reply", "read_keyword",
    "read_keyword_reply",
]

_PAPER = "FaithEval (Ming et al., 2024); HalluLens (Bang et al., 2025) section 4.3"
_ABOUT = About(
    paper_title="FaithEval: Can Your Language Model Stay Faithful to Context, Even If \"The Moon is Made of "
    "Marshmallows\"", paper_url="https://arxiv.org/abs/2410.03727", section="section 4.3",
    network=True, gpu=False, weights=False, judge=False, runtime="fast", offline=False)
_KEYWORD_METRICS = (
    Metric("accuracy", "rate", True, "replies with a keyword of the published list, as whole words / N"),
    Metric("accuracy_official", "rate", True, "the same with the reference's substring matching ('not' in 'nothing')"),
    Metric("accuracy_strict", "rate", True, "replies with the task's single keyword, as a whole word / N"),
    Metric("accuracy_strict_official", "rate", True, "the same with the reference's substring matching"),
)


def _keyword_benchmark(task: KeywordTask) -> Benchmark:
    return Benchmark(
        name=f"faitheval_{task.name}",
        family="hallulens_intrinsic",
        paper=_PAPER, about=_ABOUT,
        column_types={"question": "string", "context": "string"},
        doc_columns=("id", "subset", "prompt"),
        to_docs=keyword_docs(task),
        metrics=_KEYWORD_METRICS,
        judge_item=keyword_judge(task),
        sample_metrics=keyword_metrics,
        breakdowns=(Breakdown("subset", "category", "source QA dataset", lambda d: d.get("subset") or None),),
        headline=("accuracy", "accuracy_strict"),
        generator=None,
        evaluate_module="faitheval",
        judge_roles=(),
        answer_readers=(read_keyword,),
        read_official=read_official_for(task.name),
        outcomes=("correct", "wrong"),
    )


COUNTERFACTUAL = Benchmark(
    name="faitheval_counterfactual",
    family="hallulens_intrinsic",
    paper=_PAPER, about=_ABOUT,
    column_types={"question": "string", "context": "string", "answerKey": "string",
                  "choices": {"label": ["string"], "text": ["string"]}},
    doc_columns=("id", "subset", "prompt", "choice_labels", "choice_texts", "answer_key"),
    to_docs=choice_docs,
    metrics=(
        Metric("accuracy", "rate", True, "replies choosing the option the context supports / N"),
        Metric("accuracy_key_substring", "rate", True,
               "replies containing the answer key letter anywhere (a naive baseline, no published rule) / N"),
        Metric("invalid_rate", "rate", False, "replies naming no option or several / N"),
    ),
    judge_item=judge_choice,
    sample_metrics=choice_metrics,
    headline=("accuracy", "invalid_rate"),
    generator=None,
    evaluate_module="faitheval",
    judge_roles=(),
    answer_readers=(read_choice,),
    read_official=read_official_for("counterfactual"),
    outcomes=("correct", "wrong", "invalid"),
)

BENCHMARKS = (_keyword_benchmark(UNANSWERABLE), _keyword_benchmark(INCONSISTENT), COUNTERFACTUAL)
