"""Rubric judging throughput (Jing et al., "On A Scale From 1 to 5", section 3.3) against a loopback
OpenAI-compatible endpoint with injected latency.

Each pair is one call of the faithfulness rubric check (``hallu_metrics.rubric.RUBRIC``) by an LLM judge;
the ideal wall time is max(calls x latency / K, latency), as in ``benchmarks/judge_throughput.py``. A share of
replies (default 10%) is unreadable at first, so those pairs cost a second call (the reminder turn) and the
ideal counts every call made. Prints a markdown table (wall, ideal, wall / ideal, cached re-run).
Usage: python benchmarks/faithfulness_rubric_throughput.py [--pairs 512] [--concurrency 8 32]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import _test_support  # noqa: F401  (tests/ on the path: the loopback servers)
from loopback import LoopbackChatServer

from hallu_metrics.benchmarks.faithfulness import RUBRIC
from hallu_metrics.contract import Benchmark, Metric
from hallu_metrics.judges import JudgeSet
from hallu_metrics.pipeline import judge_responses
from hallubench.core.backends import CallCache


async def rubric_item(doc: dict, response: str, judges: JudgeSet) -> dict:
    """One rubric verdict for the (reference, hypothesis) pair."""
    verdict = await judges.get().ask(RUBRIC, doc)
    return {"score": verdict.label, "outcome": verdict.status}


THROUGHPUT = Benchmark(name="rubric_throughput", family="benchmarks", paper="", column_types={},
                       metrics=(Metric("ok", "rate", True, ""),), judge_item=rubric_item,
                       sample_metrics=lambda record, doc: {"ok": float(record["outcome"] == "ok")})


def _reply(unreadable: float):
    def reply(messages: list[dict]) -> str:
        text = messages[-1]["content"]
        if len(messages) <= 2 and random.Random(text).random() < unreadable:
            return "The summary looks mostly fine to me."
        return '{"reasoning": "The dates and names match the source.", "score": 4}'
    return reply


def _run(docs: list[dict], spec: str, cache: Path) -> tuple[float, dict, list[dict]]:
    judges = JudgeSet({"judge": spec}, cache=CallCache(cache))
    start = time.perf_counter()
    records = judge_responses(THROUGHPUT, [""] * len(docs), docs, judges, desc="rubric judging")
    wall = time.perf_counter() - start
    calls = judges.report()[judges.get().spec]
    judges.close()
    return wall, calls, records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=512)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--unreadable", type=float, default=0.1, help="share of first replies without a score")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    args = parser.parse_args()
    docs = [{"reference": f"Document {i}: the council met {i % 7 + 2} times in March and approved the budget.",
             "hypothesis": f"The council met {i % 7 + 2} times."} for i in range(args.pairs)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, LoopbackChatServer(_reply(args.unreadable), latency=args.latency) as srv:
        for k in args.concurrency:
            spec = f"openai:base_url={srv.base_url},model=rubric-k{k},concurrency={k}"
            wall, calls, records = _run(docs, spec, Path(tmp) / f"k{k}.sqlite")
            ideal = max(calls["calls"] * args.latency / k, 2 * args.latency if calls["calls"] > len(docs) else
                        args.latency)
            cached_wall, cached, _ = _run(docs, spec, Path(tmp) / f"k{k}.sqlite")
            scored = sum(r["outcome"] == "ok" for r in records)
            rows.append((k, calls["calls"], scored, wall, ideal, cached_wall, cached["calls"]))
    print(f"\n{args.pairs} pairs; latency {args.latency * 1000:.0f} ms; "
          f"{args.unreadable:.0%} first replies unreadable\n")
    print("| K | calls | scored | wall (s) | ideal (s) | wall / ideal | cached re-run (s) | re-run calls |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k, calls, scored, wall, ideal, cached_wall, cached_calls in rows:
        print(f"| {k} | {calls} | {scored} | {wall:.2f} | {ideal:.2f} | {wall / ideal:.2f} | {cached_wall:.2f} | "
              f"{cached_calls} |")


if __name__ == "__main__":
    main()
