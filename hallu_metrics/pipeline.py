"""Streaming judging: every item runs its own chain of steps (e.g. abstention -> correctness, or
refusal -> claims -> evidence -> verification of each claim) as soon as its previous step is done,
all items at once under the judges' bounded pools. No step waits for other items (no barrier);
an item is finished when its own chain is. A response's lone surrogates (a broken JSON escape) are replaced by U+FFFD
before judging, as every model call would send them, so that no step (sentence splitting, title lookups in SQLite)
meets text that is not valid Unicode."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from typing import Any

from tqdm.auto import tqdm

from hallu_metrics.contract import Benchmark
from hallu_metrics.judges.judge_set import JudgeSet
from hallubench.core.backends.aio import run_sync
from hallubench.core.backends.base import LONE_SURROGATE


async def judge_one(benchmark: Benchmark, doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """One item's chain (an Inspect scorer judges one sample at a time)."""
    return await benchmark.judge_item(doc, LONE_SURROGATE.sub("\ufffd", response), judges)


async def judge_all(
    benchmark: Benchmark, responses: Sequence[str], docs: Sequence[dict], judges: JudgeSet, desc: str = ""
) -> list[dict[str, Any]]:
    """All items' chains concurrently; records in input order."""
    with tqdm(
        total=len(docs), desc=desc or f"judge {benchmark.name}", unit="item", file=sys.stderr, dynamic_ncols=True
    ) as bar:

        async def one(doc: dict, response: str) -> dict[str, Any]:
            record = await judge_one(benchmark, doc, response, judges)
            bar.update(1)
            return record

        return list(await asyncio.gather(*(one(d, r) for d, r in zip(docs, responses))))


def judge_responses(
    benchmark: Benchmark, responses: Sequence[str], docs: Sequence[dict], judges: JudgeSet, desc: str = ""
) -> list[dict[str, Any]]:
    """Synchronous entry point of :func:`judge_all` (lm-eval filters, ``hallubench score``)."""
    if len(responses) != len(docs):
        raise ValueError(f"{len(responses)} responses for {len(docs)} docs")
    return run_sync(judge_all(benchmark, responses, docs, judges, desc))


def timed_judging(benchmark: Benchmark, responses: Sequence[str], docs: Sequence[dict], judges: JudgeSet
                  ) -> tuple[float, dict[str, int]]:
    """For speed benchmarks: judge everything once; (wall seconds, call counts of the ``judge`` role's judge).
    The judges are closed afterwards."""
    start = time.perf_counter()
    try:
        run_sync(judge_all(benchmark, responses, docs, judges))
        wall = time.perf_counter() - start
        return wall, judges.report()[judges.get().spec]
    finally:
        judges.close()
