"""Every benchmark, declared once in its metrics module, collected here. The lm-eval tasks, the data
loader, ``hallubench score``, reports and the contract test all read this registry."""

from __future__ import annotations

from hallu_metrics.benchmarks import (
    anah,
    faitheval,
    faithfulness,
    halueval,
    hhem_summarization,
    longwiki,
    nonexistent_refusal,
    popqa,
    precisewikiqa,
    simpleqa,
    wildhallucinations,
)
from hallu_metrics.contract import Benchmark
from hallu_metrics.judges.base import Check
from hallubench.core.errors import HallubenchError

BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        precisewikiqa.BENCHMARK,
        longwiki.BENCHMARK,
        nonexistent_refusal.MIXED,
        nonexistent_refusal.GENERATED,
        *halueval.BENCHMARKS,
        wildhallucinations.BENCHMARK,
        *faithfulness.BENCHMARKS,
        hhem_summarization.BENCHMARK,
        *faitheval.BENCHMARKS,
        anah.BENCHMARK,
        simpleqa.BENCHMARK,
        popqa.BENCHMARK,
    )
}

# Every check a benchmark declares, once each (by name): what judge template files may name (judges.templates).
ALL_CHECKS: tuple[Check, ...] = tuple({c.name: c for b in BENCHMARKS.values() for c in b.checks}.values())

TASKS: dict[str, Benchmark] = {task: b for b in BENCHMARKS.values() for task in b.task_names}


def benchmark_for_task(task: str) -> Benchmark:
    """The benchmark serving an lm-eval task name (a benchmark name or one of its variants)."""
    if task not in TASKS:
        raise HallubenchError(f"unknown task {task!r} (known: {', '.join(sorted(TASKS))})")
    return TASKS[task]
