"""LongWiki judging throughput against the loopback OpenAI-compatible endpoint (fixed latency per call).

Synthetic run: ``--responses`` answers of ``--sentences`` sentences about pages of a small knowledge store built
here; the scripted judge finds the answer knowledgeable, extracts ``--claims-per-sentence`` claims from every
snippet and verifies each claim. ``--retrieval``: ``embedding`` (the task's default: MiniLM, passage vectors
cached, claim queries embedded in batches shared by the responses that reach retrieval together), ``bm25``, or
``stub`` (one fixed passage, no retrieval work: isolates the judging schedule). The fresh run also reports the
judging process's CPU time and how busy the machine's cores were (Linux ``/proc/stat``), to tell a call-bound
run from a CPU-bound one. Every role uses one judge spec with concurrency K. Ideal wall
time = max(calls x latency / K, longest per-item chain x latency), the chain being refusal -> extraction ->
verification = 3 calls. Also: a cached re-run (0 calls expected), and a run
killed with SIGKILL about halfway and then resumed (repeated calls expected <= K: those in flight at the kill).
Usage: python benchmarks/longwiki_judging_throughput.py [--responses 50] [--sentences 20] [--latency 0.1] [--k 32]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import re
import signal
import tempfile
import time
from pathlib import Path

import _test_support  # noqa: F401  (tests/ on the path: the loopback servers)
from loopback import LoopbackChatServer

from hallu_metrics.benchmarks import longwiki
from hallu_metrics.benchmarks.longwiki import chain as longwiki_chain
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.longform.knowledge import write_store
from hallu_metrics.longform.passages import Passage
from hallu_metrics.pipeline import judge_responses
from hallubench.core.backends import CallCache

TOPICS = ["Sirius", "Vega", "Canopus", "Rigel", "Betelgeuse"]
CHAIN = 3  # refusal -> claim extraction -> verification


def pages() -> list[tuple[str, str]]:
    facts = " ".join(f"It has property number {i}, measured in year {1900 + i}." for i in range(300))
    return [(topic, f"{topic} is a bright star in the night sky. {facts}") for topic in TOPICS]


def workload(n_responses: int, n_sentences: int) -> tuple[list[str], list[dict]]:
    docs, responses = [], []
    for r in range(n_responses):
        topic = TOPICS[r % len(TOPICS)]
        docs.append({"id": f"lw-{r}", "prompt": f"Tell me about the star {topic}, answer {r}.", "title": topic,
                     "reference": "", "level": 5 + r % 5})
        responses.append(" ".join(f"{topic} has property number {s} in answer {r}." for s in range(n_sentences)))
    return responses, docs


def make_reply(claims_per_sentence: int):
    def reply(messages: list[dict]) -> str:
        text = messages[-1]["content"]
        if "is_knowledgeable" in messages[0]["content"]:
            return '{"is_knowledgeable": true}'
        if "Claims:" in text:
            sentence = re.findall(r"<SOS>(.*?)<EOS>", text)[-1].rstrip(".")
            return "\n".join(f"- {sentence}, part {i}." for i in range(claims_per_sentence))
        return '{"is_supported": true}'

    return reply


class FixedEvidence:
    """``--retrieval stub``: one fixed passage per claim, no retrieval work."""

    def passages(self, question: str, claim: str, title: str) -> list[Passage]:
        return [Passage(title, f"{title} is a bright star in the night sky.", 0)]

    async def prepare(self, title: str, claims: list[str]) -> None:
        pass


def judge(base_url: str, k: int, cache: Path, store: str, retrieval: str, responses: list[str], docs: list[dict]
          ) -> dict:
    """One judging run; the judge's call counters."""
    if retrieval == "stub":
        longwiki_chain.open_evidence = lambda settings: FixedEvidence()  # the chain's lookup
    spec = f"openai:base_url={base_url},model=judge,concurrency={k}"
    judges = JudgeSet({"judge": spec}, CallCache(cache), settings={"knowledge": store, "retrieval": retrieval})
    try:
        judge_responses(longwiki.BENCHMARK, responses, docs, judges, desc="judge longwiki")
        return judges.report()[judges.get("judge").spec]
    finally:
        judges.close()


def _killed_run(base_url: str, k: int, cache: Path, store: str, retrieval: str, n_responses: int, n_sentences: int
                ) -> None:
    judge(base_url, k, cache, store, retrieval, *workload(n_responses, n_sentences))


def cpu_ticks() -> tuple[int, int]:
    """(all, idle) CPU ticks of the machine since boot, from /proc/stat ((0, 0) where there is none)."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(x) for x in stat.readline().split()[1:]]
    except OSError:
        return 0, 0
    return sum(ticks), ticks[3] + ticks[4]


def request_key(body: dict) -> str:
    return hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()


def _serve(conn, latency: float, claims_per_sentence: int) -> None:
    """The endpoint in its own process (as a real one would be), so that it does not share the judging
    process's interpreter lock; answers "keys" with the request keys seen so far, "clear" by forgetting them."""
    with LoopbackChatServer(make_reply(claims_per_sentence), latency=latency) as server:
        conn.send(server.base_url)
        while (command := conn.recv()) != "stop":
            if command == "clear":
                server.requests.clear()
            conn.send([request_key(body) for body in list(server.requests)])


class Endpoint:
    """Handle on the endpoint process."""

    def __init__(self, latency: float, claims_per_sentence: int):
        self._conn, child = mp.Pipe()
        self._proc = mp.get_context("spawn").Process(target=_serve, args=(child, latency, claims_per_sentence))
        self._proc.start()
        self.base_url = self._conn.recv()

    def keys(self, command: str = "keys") -> list[str]:
        self._conn.send(command)
        return self._conn.recv()

    def close(self) -> None:
        self._conn.send("stop")
        self._proc.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=50)
    parser.add_argument("--sentences", type=int, default=20)
    parser.add_argument("--claims-per-sentence", type=int, default=2)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--k", type=int, default=32)
    parser.add_argument("--retrieval", choices=["embedding", "bm25", "stub"], default="embedding")
    args = parser.parse_args()
    responses, docs = workload(args.responses, args.sentences)
    calls = args.responses * (1 + args.sentences + args.sentences * args.claims_per_sentence)
    ideal = max(calls * args.latency / args.k, CHAIN * args.latency)
    server = Endpoint(args.latency, args.claims_per_sentence)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HALLUBENCH_CACHE"] = str(Path(tmp) / "calls.sqlite")  # the embedding cache goes next to it
        store = str(write_store(Path(tmp) / "kb", pages(), progress=False).path)

        def run(cache: str, items: int) -> dict:
            return judge(server.base_url, args.k, Path(tmp) / cache, store, args.retrieval, responses[:items],
                         docs[:items])

        run("warm.sqlite", len(TOPICS))  # load NER / embedder and embed the pages' passages once
        start, cpu, ticks = time.perf_counter(), time.process_time(), cpu_ticks()
        stats = run("calls.sqlite", args.responses)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        (total, idle), (total0, idle0) = cpu_ticks(), ticks
        busy = 1 - (idle - idle0) / (total - total0) if total > total0 else float("nan")
        start = time.perf_counter()
        cached = run("calls.sqlite", args.responses)
        cached_wall = time.perf_counter() - start

        server.keys("clear")
        resume_cache = Path(tmp) / "resume.sqlite"
        proc = mp.get_context("spawn").Process(
            target=_killed_run,
            args=(server.base_url, args.k, resume_cache, store, args.retrieval, args.responses, args.sentences),
        )
        proc.start()
        while len(server.keys()) < calls // 2 and proc.is_alive():
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        before = server.keys()
        resumed = run("resume.sqlite", args.responses)
        repeated = sum(key in set(before) for key in server.keys()[len(before):])
        sent_before = len(before)
    server.close()
    print(f"\n{args.responses} responses x {args.sentences} sentences, {args.claims_per_sentence} claims per "
          f"sentence: {calls} judge calls, {args.latency * 1000:.0f} ms latency, K={args.k}, retrieval "
          f"{args.retrieval}\n")
    print("| run | calls made | cached | wall (s) | ideal (s) | wall / ideal |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| fresh | {stats['calls']} | {stats['cached']} | {wall:.2f} | {ideal:.2f} | {wall / ideal:.2f} |")
    print(f"| cached re-run | {cached['calls']} | {cached['cached']} | {cached_wall:.2f} | - | - |")
    print(f"| resume after SIGKILL at {sent_before} requests | {resumed['calls']} | {resumed['cached']} | - | - | - |")
    print(f"\nrepeated calls after the kill: {repeated} (bound: K = {args.k})")
    print(f"fresh run: judging process CPU {cpu:.1f} s in {wall:.1f} s wall; machine cores busy {busy:.0%} "
          f"({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
