"""Judging throughput against a loopback OpenAI-compatible endpoint with injected latency.

Ideal wall time of a judging run (issue: contract): the larger of calls x latency / K (the pool is the
bottleneck) and the longest per-item chain of calls x latency (an item cannot finish sooner). A barrier
between steps adds waiting on top of that; streaming per-item chains should come close to the ideal.

Two workloads:
- PreciseWikiQA judging: per item abstention -> correctness, fixed latency (default 200 ms);
- a synthetic 4-step chain: step 1 -> step 2 fans out to 10 calls -> step 3 -> step 4, each call with a latency
  drawn per call (default 50-500 ms, seeded), where a barrier between steps costs most.
The loopback server runs in a child process (sharing the client's interpreter, it would compete with it for
the GIL and inflate wall times at high K). With a fixed latency, calls go out in whole waves of at most K, so
ceil(calls / K) x latency is a second, tighter lower bound (0.8 s, not 0.62 s, for 200 calls at K=64).
Prints a markdown table (wall, ideal, wall / ideal, wall / whole-wave bound, cached re-run wall and calls).
Usage: python benchmarks/judge_throughput.py [--items 100] [--concurrency 16 64]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import tempfile
from pathlib import Path

import _test_support  # noqa: F401  (tests/ on the path: the loopback servers)
from loopback import loopback_process

from hallu_metrics.benchmarks import precisewikiqa
from hallu_metrics.contract import Benchmark, Metric
from hallu_metrics.judges import JudgeSet
from hallu_metrics.judges.base import Check
from hallu_metrics.pipeline import timed_judging
from hallubench.core.backends import CallCache

FAN_OUT = 10


def _step(name: str) -> Check:
    return Check(
        name=name,
        messages=lambda item: [{"role": "user", "content": f"{name} {item['key']}"}],
        parse=lambda text: text,
        reminder="again",
    )


STEPS = [_step(f"step{i}") for i in range(1, 5)]


async def synthetic_chain(doc: dict, response: str, judges: JudgeSet) -> dict:
    """step1 -> 10 x step2 (concurrent) -> step3 -> step4, one item."""
    judge = judges.get()
    await judge.ask(STEPS[0], {"key": doc["id"]})
    await asyncio.gather(*(judge.ask(STEPS[1], {"key": f"{doc['id']}.{k}"}) for k in range(FAN_OUT)))
    await judge.ask(STEPS[2], {"key": doc["id"]})
    await judge.ask(STEPS[3], {"key": doc["id"]})
    return {"outcome": "done"}


SYNTHETIC = Benchmark(
    name="synthetic_chain",
    family="benchmarks",
    paper="",
    column_types={},
    metrics=(Metric("done", "rate", True, ""),),
    judge_item=synthetic_chain,
    sample_metrics=lambda record, doc: {"done": 1.0},
)


def _latency_table(seed: int, low: float, high: float):
    """Per-call latency drawn from the request text (so the ideal can be computed up front)."""

    def latency(messages: list[dict]) -> float:
        return random.Random(f"{seed}:{messages[-1]['content']}").uniform(low, high)

    return latency


def _run(
    benchmark: Benchmark, docs: list[dict], responses: list[str], spec: str, cache_path: Path
) -> tuple[float, dict]:
    return timed_judging(benchmark, responses, docs, JudgeSet({"judge": spec}, cache=CallCache(cache_path)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--low", type=float, default=0.05)
    parser.add_argument("--high", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 64])
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        docs = [{"question": f"Question number {i}?", "answer": f"answer {i}"} for i in range(args.items)]
        responses = [f"My answer is answer {i}." for i in range(args.items)]

        def reply(messages: list[dict]) -> str:
            return '{"is_abstaining": false}' if "Judgement:" in messages[-1]["content"] else '{"verdict": "CORRECT"}'

        with loopback_process(reply, latency=args.latency) as base_url:
            for k in args.concurrency:
                spec = f"openai:base_url={base_url},model=pwqa-k{k},concurrency={k}"
                wall, calls = _run(precisewikiqa.BENCHMARK, docs, responses, spec, Path(tmp) / f"p{k}.sqlite")
                ideal = max(calls["calls"] * args.latency / k, 2 * args.latency)
                waves = max(math.ceil(calls["calls"] / k), 2) * args.latency  # whole waves of K calls
                cached_wall, cached = _run(precisewikiqa.BENCHMARK, docs, responses, spec, Path(tmp) / f"p{k}.sqlite")
                rows.append(("PreciseWikiQA (2 steps)", k, calls["calls"], wall, ideal, waves, cached_wall,
                             cached["calls"]))

        latency = _latency_table(0, args.low, args.high)
        synthetic_docs = [{"id": f"item{i}"} for i in range(args.items)]
        per_item = []
        for doc in synthetic_docs:
            step = lambda name, key: latency([{"content": f"{name} {key}"}])
            fan = [step("step2", f"{doc['id']}.{k}") for k in range(FAN_OUT)]
            per_item.append((step("step1", doc["id"]), fan, step("step3", doc["id"]), step("step4", doc["id"])))
        total = sum(a + sum(f) + c + d for a, f, c, d in per_item)
        longest_chain = max(a + max(f) + c + d for a, f, c, d in per_item)
        with loopback_process(lambda m: "ok", latency=latency) as base_url:
            for k in args.concurrency:
                spec = f"openai:base_url={base_url},model=chain-k{k},concurrency={k}"
                path = Path(tmp) / f"s{k}.sqlite"
                wall, calls = _run(SYNTHETIC, synthetic_docs, [""] * args.items, spec, path)
                ideal = max(total / k, longest_chain)
                cached_wall, cached = _run(SYNTHETIC, synthetic_docs, [""] * args.items, spec, path)
                rows.append(
                    ("synthetic 4-step, fan-out 10", k, calls["calls"], wall, ideal, None, cached_wall, cached["calls"])
                )
    print(
        f"\n{args.items} items; PreciseWikiQA latency {args.latency * 1000:.0f} ms; synthetic latencies "
        f"{args.low * 1000:.0f}-{args.high * 1000:.0f} ms per call\n"
    )
    print("| workload | K | calls | wall (s) | ideal (s) | wall / ideal | wall / whole-wave bound | cached re-run (s) "
          "| re-run calls |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, k, calls, wall, ideal, waves, cached_wall, cached_calls in rows:
        bound = f"{wall / waves:.2f}" if waves else "-"
        print(f"| {name} | {k} | {calls} | {wall:.2f} | {ideal:.2f} | {wall / ideal:.2f} | {bound} | "
              f"{cached_wall:.2f} | {cached_calls} |")


if __name__ == "__main__":
    main()
