"""Bounded sizes (issue 24, item 11): LongWiki judging of oversized responses (a 50 MB response, one of 100,000
sentences) ends at once with outcome ``too_long``; a judge server answering 20 MB replies is cut at
``max_reply_bytes``. Each case runs in a fresh process (wall time and peak memory of that process).

    python benchmarks/sizes.py          # prints a markdown table (docs/reliability.md, "Bounded calls")
"""

from __future__ import annotations

import multiprocessing
import resource
import tempfile
import time
from pathlib import Path

import _test_support  # noqa: F401  (puts tests/ on the import path)
from loopback import LoopbackChatServer

from hallu_metrics.benchmarks import longwiki
from hallu_metrics.judges import JudgeSet
from hallu_metrics.longform.knowledge import write_store
from hallu_metrics.pipeline import judge_responses
from hallubench.core.backends import ChatRequest, backend_spec, make_client

DOC = {"id": "s", "prompt": "Tell me about Sirius.", "title": "Sirius", "reference": "", "level": 7, "k": 32}
RESPONSES = {
    "50 MB response": "Sirius is the brightest star in the night sky. " * 1_100_000,
    "100,000-sentence response": "It is. " * 100_000,
}


def _judge_case(name: str, queue: multiprocessing.Queue) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = str(write_store(Path(tmp) / "kb", [("Sirius", "Sirius is a star.")], progress=False).path)
        judges = JudgeSet({"judge": "rule"}, settings={"knowledge": store, "retrieval": "bm25"})
        start = time.perf_counter()
        records = judge_responses(longwiki.BENCHMARK, [RESPONSES[name]], [DOC], judges)
        wall = time.perf_counter() - start
        judges.close()
    queue.put((records[0]["outcome"], wall, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def _reply_case(_: str, queue: multiprocessing.Queue) -> None:
    big = "x" * 20_000_000
    with LoopbackChatServer(lambda messages: big) as server:
        client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m,max_retries=0"), None)
        start = time.perf_counter()
        out = client.complete([ChatRequest.from_messages([{"role": "user", "content": "q"}])])
        wall = time.perf_counter() - start
    outcome = "failed: over max_reply_bytes" if not out[0].ok and "bytes" in out[0].error else "accepted"
    queue.put((outcome, wall, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def run(case, name: str) -> tuple[str, float, float]:
    queue: multiprocessing.Queue = multiprocessing.get_context("spawn").Queue()
    process = multiprocessing.get_context("spawn").Process(target=case, args=(name, queue))
    process.start()
    result = queue.get(timeout=600)
    process.join()
    return result


def main() -> None:
    print("| input | outcome | wall (s) | peak memory of the process (MB) |")
    print("|---|---|---:|---:|")
    for name in RESPONSES:
        outcome, wall, rss = run(_judge_case, name)
        print(f"| LongWiki, {name} | {outcome} | {wall:.2f} | {rss:.0f} |")
    outcome, wall, rss = run(_reply_case, "reply")
    print(f"| judge reply of 20 MB (max_reply_bytes 4 MiB) | {outcome} | {wall:.2f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
