"""WildHallucinations judging throughput against a loopback OpenAI-compatible endpoint with injected latency.

Per item: one atomic-facts call per sentence, then (after retrieval from the entity's pages in a thread) one
verification call per fact, each sentence's chain streaming on its own. ``--retrieval``: ``bm25`` (default),
``embedding`` (MiniLM; first runs are dominated by embedding new passages), or ``stub`` (one fixed passage per fact,
no retrieval work: isolates the judging schedule). Ideal wall time (issue: contract): max(calls x latency / K,
longest chain x latency), the longest chain being extraction -> verification (2 calls).
Prints a markdown table (wall, ideal, wall / ideal, cached re-run wall and calls).
Usage: python benchmarks/wildhallucinations_judging_throughput.py [--items 100] [--concurrency 8 32]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import _test_support  # noqa: F401  (tests/ on the path: the loopback servers)
from loopback import LoopbackChatServer

from hallu_metrics.benchmarks.wildhallucinations import BENCHMARK
from hallu_metrics.benchmarks.wildhallucinations import chain as wildhallucinations_chain
from hallu_metrics.judges import JudgeSet
from hallu_metrics.judges.prompts import block_texts
from hallu_metrics.longform.passages import Passage
from hallu_metrics.pipeline import timed_judging
from hallubench.core.backends import CallCache

CHAIN_CALLS = 2  # atomic facts of a sentence -> verification of each of its facts


def reply(messages: list[dict]) -> str:
    """Three facts per sentence (named after it, so no two items share a cached call); every fact supported."""
    prompt = messages[-1]["content"]
    if prompt.endswith("Facts:"):
        sentence = block_texts(prompt, "sentence")[-1]
        return "\n".join(f"- {sentence} (fact {k})" for k in range(3))
    return '{"is_supported": true}'


def workload(items: int, sentences: int) -> tuple[list[dict], list[str]]:
    docs = [
        {"entity": f"Entity {i}", "perplexity": 10.0, "category": "geographic",
         "info": [{"status_code": 200, "url": f"https://e{i}.example/{p}",
                   "text": " ".join(f"Entity {i} fact {p}.{w} about topic {w % 7}." for w in range(300))}
                  for p in range(3)]}
        for i in range(items)
    ]
    responses = [" ".join(f"Entity {i} has property number {s}." for s in range(sentences)) for i in range(items)]
    return docs, responses


def stub_passages(retriever, entity: str, facts: list[str], passages: list[Passage]) -> list[list[Passage]]:
    """``--retrieval stub``: one fixed passage per fact, no retrieval work."""
    return [[Passage("https://stub.example/", f"{entity} is described here.", 0)] for _ in facts]


def run(docs: list[dict], responses: list[str], spec: str, cache: Path, retrieval: str) -> tuple[float, dict[str, int]]:
    if retrieval == "stub":
        wildhallucinations_chain.top_passages = stub_passages  # the chain's lookup
    settings = {"retrieval": "bm25" if retrieval == "stub" else retrieval}
    judges = JudgeSet({"judge": spec}, cache=CallCache(cache), settings=settings)
    return timed_judging(BENCHMARK, responses, docs, judges)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--sentences", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--retrieval", choices=["bm25", "embedding", "stub"], default="bm25")
    args = parser.parse_args()
    docs, responses = workload(args.items, args.sentences)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, LoopbackChatServer(reply, latency=args.latency) as server:
        for k in args.concurrency:
            spec = f"openai:base_url={server.base_url},model=wild-k{k},concurrency={k}"
            wall, calls = run(docs, responses, spec, Path(tmp) / f"k{k}.sqlite", args.retrieval)
            ideal = max(calls["calls"] * args.latency / k, CHAIN_CALLS * args.latency)
            cached_wall, cached = run(docs, responses, spec, Path(tmp) / f"k{k}.sqlite", args.retrieval)
            rows.append((k, calls["calls"], wall, ideal, cached_wall, cached["calls"]))
    print(f"\n{args.items} items x {args.sentences} sentences x 3 facts; latency {args.latency * 1000:.0f} ms per "
          f"call; {args.retrieval} retrieval from each entity's 3 pages\n")
    print("| K | calls | wall (s) | ideal (s) | wall / ideal | cached re-run (s) | re-run calls |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for k, calls, wall, ideal, cached_wall, cached_calls in rows:
        print(f"| {k} | {calls} | {wall:.2f} | {ideal:.2f} | {wall / ideal:.2f} | {cached_wall:.2f} | {cached_calls} |")


if __name__ == "__main__":
    main()
