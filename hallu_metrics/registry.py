"""What ``hallubench score`` and the lm-eval judging filter need to know about each benchmark."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from hallu_metrics import nonexistent_refusal, precisewikiqa
from hallu_metrics.judges import Judge


@dataclass(frozen=True)
class Benchmark:
    """Columns a test set must have, its judging pipeline and its summary of judged records."""

    required_columns: tuple[str, ...]
    judge_responses: Callable[[Sequence[str], Sequence[dict], Judge], list[dict[str, Any]]]
    summarize: Callable[[Sequence[dict], Sequence[dict]], dict[str, Any]]
    headline: tuple[str, ...]  # metrics shown first in tables


BENCHMARKS: dict[str, Benchmark] = {
    "precisewikiqa": Benchmark(
        required_columns=precisewikiqa.REQUIRED_COLUMNS,
        judge_responses=precisewikiqa.judge_responses,
        summarize=lambda records, docs: precisewikiqa.summarize(
            [r["outcome"] for r in records], [d.get("difficulty") for d in docs]
        ),
        headline=("false_refusal_rate", "hallucination_rate", "correct_rate", "judge_unparseable_rate"),
    ),
    "mixedentities": Benchmark(
        required_columns=nonexistent_refusal.MIXED_COLUMNS,
        judge_responses=nonexistent_refusal.judge_responses,
        summarize=nonexistent_refusal.summarize,
        headline=("false_acceptance_rate", "judge_unparseable_rate"),
    ),
    "generatedentities": Benchmark(
        required_columns=nonexistent_refusal.GENERATED_COLUMNS,
        judge_responses=nonexistent_refusal.judge_responses,
        summarize=nonexistent_refusal.summarize,
        headline=("false_acceptance_rate", "judge_unparseable_rate"),
    ),
}
