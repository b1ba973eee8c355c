"""Judge throughput against a loopback OpenAI-compatible endpoint with fixed latency.

With concurrency K, wall time should approach calls x latency / K. Prints a markdown table of
wall time, the ratio to that ideal and the speed-up over serial, plus the cache-hit re-run time.
Usage: python benchmarks/judge_throughput.py [--items 50] [--latency 0.2] [--concurrency 1 4 16 64]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from hallubench.backends import CallCache, backend_spec, make_client
from hallubench.loopback import LoopbackChatServer
from hallu_metrics import precisewikiqa
from hallu_metrics.judges import LLMJudge


def judge_reply(messages: list[dict]) -> str:
    return '{"is_abstaining": false}' if "Judgement:" in messages[-1]["content"] else '{"verdict": "CORRECT"}'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16, 64])
    args = parser.parse_args()
    docs = [{"question": f"Question number {i}?", "answer": f"answer {i}"} for i in range(args.items)]
    responses = [f"My answer is answer {i}." for i in range(args.items)]
    calls = 2 * args.items  # abstention + correctness per item
    rows, serial = [], None
    with LoopbackChatServer(judge_reply, latency=args.latency) as server, tempfile.TemporaryDirectory() as tmp:
        for k in args.concurrency:
            cache = CallCache(Path(tmp) / f"k{k}.sqlite")
            spec = backend_spec(f"openai:base_url={server.base_url},model=judge-k{k},concurrency={k}")
            start = time.perf_counter()
            precisewikiqa.judge_responses(responses, docs, LLMJudge(make_client(spec, cache)))
            wall = time.perf_counter() - start
            serial = serial or wall * k  # first row is K=1 by default
            ideal = calls * args.latency / k
            start = time.perf_counter()
            rerun = LLMJudge(make_client(spec, cache))
            precisewikiqa.judge_responses(responses, docs, rerun)
            cached_wall = time.perf_counter() - start
            assert rerun.client.stats.calls == 0
            rows.append((k, wall, ideal, wall / ideal, calls * args.latency / wall, cached_wall))
    print(f"\n{calls} judge calls, {args.latency * 1000:.0f} ms injected latency per call\n")
    print("| concurrency K | wall (s) | ideal calls*latency/K (s) | wall / ideal | speed-up vs serial | cache-hit re-run (s) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for k, wall, ideal, ratio, speedup, cached_wall in rows:
        print(f"| {k} | {wall:.2f} | {ideal:.2f} | {ratio:.2f} | {speedup:.1f}x | {cached_wall:.3f} |")


if __name__ == "__main__":
    main()
