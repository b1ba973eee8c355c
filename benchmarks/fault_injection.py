"""Fault injection against a loopback OpenAI-compatible judge endpoint (figures in docs/reliability.md).

1. faults: a seeded share of requests get HTTP 500/503/429, a malformed body, a reply slower than the
   client timeout, or a connection dropped without a reply (by a TCP relay in front of the server);
   reports faults injected, verdicts recovered (answers equal to the expected verdict), requests sent.
2. kill -9: a client process is killed mid-run, then the run is repeated on the same cache; reports
   calls repeated (sent in the killed run but not cached, i.e. in flight at the kill).
3. dead endpoint: calls at a closed port and at an unresolvable host with default retries (run this
   part on an older commit to compare with the backend before the circuit breaker).
4. two processes sharing one cache: requests sent for N distinct calls.
Usage: python benchmarks/fault_injection.py [--calls 400] [--fault-rate 0.3] [--seed 0] [--kills 3]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import signal
import socket
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import _test_support  # noqa: F401  (tests/ on the path: the loopback servers)
from loopback import LoopbackChatServer

from hallubench.core.backends import CallCache, ChatRequest, backend_spec, make_client

SERVER_FAULTS = ("500", "503", "429", "garbage", "timeout")
FAULT_KINDS = (*SERVER_FAULTS, "drop")
CLIENT_TIMEOUT_S = 0.5


def verdict_for(messages: list[dict]) -> str:
    """The judge's answer to one prompt: a fixed function of the item, so recovery can be checked."""
    item = int(messages[-1]["content"].rsplit(" ", 1)[1])
    return '{"verdict": "%s"}' % ("CORRECT" if item % 3 else "INCORRECT")


def judge_requests(n: int) -> list[ChatRequest]:
    return [ChatRequest.from_messages([{"role": "user", "content": f"Judge response number {i}"}]) for i in range(n)]


class DroppingRelay:
    """TCP relay to ``upstream``: connection k is closed without a reply when ``drops[k]`` is true.
    The loopback server speaks HTTP/1.0 (one request per connection), so this drops single requests."""

    def __init__(self, upstream: tuple[str, int], drops: list[bool]):
        self.upstream, self.drops = upstream, iter(drops)
        self.dropped = 0
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=256)
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def port(self) -> int:
        return self._listener.getsockname()[1]

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            if next(self.drops, False):
                self.dropped += 1
                conn.recv(65536)
                conn.close()
            else:
                threading.Thread(target=self._relay, args=(conn,), daemon=True).start()

    def _relay(self, conn: socket.socket) -> None:
        with conn, socket.create_connection(self.upstream) as upstream:
            back = threading.Thread(target=_pump, args=(upstream, conn), daemon=True)
            back.start()
            _pump(conn, upstream)
            back.join()

    def close(self) -> None:
        self._listener.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def fault_plan(n_requests: int, rate: float, seed: int) -> list[str | None]:
    """One entry per request in arrival order: a fault kind, or None for a normal answer."""
    rng = random.Random(f"{seed}:fault-injection")
    return [rng.choice(FAULT_KINDS) if rng.random() < rate else None for _ in range(n_requests)]


def run_faults(calls: int, rate: float, seed: int) -> dict:
    plan = fault_plan(calls * 4, rate, seed)  # enough entries for every retry
    server_faults = [kind if kind in SERVER_FAULTS else None for kind in plan if kind != "drop"]
    with LoopbackChatServer(verdict_for, faults=server_faults, hang_seconds=2 * CLIENT_TIMEOUT_S) as server:
        relay = DroppingRelay(("127.0.0.1", urlsplit(server.base_url).port), [kind == "drop" for kind in plan])
        spec = (f"openai:base_url=http://127.0.0.1:{relay.port}/v1,model=judge,concurrency=16,"
                f"timeout={CLIENT_TIMEOUT_S},max_retries=5,backoff=0.05")
        client = make_client(backend_spec(spec), None)
        requests = judge_requests(calls)
        start = time.perf_counter()
        out = client.complete(requests, desc="judge calls under faults")
        wall = time.perf_counter() - start
        relay.close()
    served_faults = len(server_faults) - len(server.faults)
    injected = Counter(k for k in server_faults[:served_faults] if k) + Counter({"drop": relay.dropped})
    expected = [verdict_for(r.message_dicts()) for r in requests]
    return {
        "calls": calls,
        "injected": dict(injected),
        "recovered": sum(c.ok and c.text == want for c, want in zip(out, expected)),
        "wrong": sum(c.ok and c.text != want for c, want in zip(out, expected)),
        "failed": sum(not c.ok for c in out),
        "requests": len(server.requests) + relay.dropped,
        "wall_s": wall,
    }


def _client_process(base_url: str, cache_path: str, calls: int) -> None:
    client = make_client(backend_spec(f"openai:base_url={base_url},model=judge,concurrency=8"), CallCache(cache_path))
    client.complete(judge_requests(calls), desc="killed run")


def run_kill(calls: int, trial: int, latency: float) -> dict:
    """Kill -9 a client after about (trial+1)/(kills+1) of its calls, then re-run on the same cache."""
    with tempfile.TemporaryDirectory() as tmp, LoopbackChatServer(verdict_for, latency=latency) as server:
        cache_path = str(Path(tmp) / "calls.sqlite")
        proc = mp.get_context("spawn").Process(target=_client_process, args=(server.base_url, cache_path, calls))
        proc.start()
        kill_at = calls * (trial + 1) // 4
        while len(server.requests) < kill_at and proc.is_alive():
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.join()
        sent_before_kill = len(server.requests)
        cache = CallCache(cache_path)
        cached_after_kill = len(cache.get_many([r.cache_key("openai-chat/judge") for r in judge_requests(calls)]))
        client = make_client(backend_spec(f"openai:base_url={server.base_url},model=judge,concurrency=8"), cache)
        out = client.complete(judge_requests(calls), desc="resumed run")
        assert all(c.ok for c in out)
        return {
            "sent_before_kill": sent_before_kill,
            "cached_after_kill": cached_after_kill,
            "resumed_calls": client.stats.calls,
            "repeated": sent_before_kill + client.stats.calls - calls,
        }


def run_dead(calls: int) -> list[tuple[str, int, str, float, str]]:
    """Time to fail every call at a closed port and at an unresolvable host."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    closed, unresolvable = f"http://127.0.0.1:{port}/v1", "http://nosuch.invalid/v1"
    cases = [("closed port", 24, ""), ("closed port", 24, ",concurrency=1"), ("closed port", calls, ""),
             ("unresolvable host", calls, "")]
    rows = []
    for name, n, extra in cases:
        url = closed if name == "closed port" else unresolvable
        client = make_client(backend_spec(f"openai:base_url={url},model=judge{extra}"), None)
        start = time.perf_counter()
        out = client.complete(judge_requests(n), desc=name)
        rows.append((name, n, extra.lstrip(",") or "default", time.perf_counter() - start, out[0].error or ""))
    return rows


def run_shared(calls: int, latency: float) -> int:
    with tempfile.TemporaryDirectory() as tmp, LoopbackChatServer(verdict_for, latency=latency) as server:
        cache_path = str(Path(tmp) / "calls.sqlite")
        procs = [mp.get_context("spawn").Process(target=_client_process, args=(server.base_url, cache_path, calls))
                 for _ in range(2)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join()
        return len(server.requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.02, help="server latency per call in the kill runs")
    args = parser.parse_args()

    faults = run_faults(args.calls, args.fault_rate, args.seed)
    injected = ", ".join(f"{k} {faults['injected'].get(k, 0)}" for k in FAULT_KINDS)
    print(f"\n## Faults ({args.fault_rate:.0%} of requests, seed {args.seed}, timeout {CLIENT_TIMEOUT_S} s, "
          "5 retries)\n")
    print("| calls | faults injected | verdicts recovered | wrong | failed | requests sent | wall (s) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    print(f"| {faults['calls']} | {sum(faults['injected'].values())} ({injected}) | {faults['recovered']} | "
          f"{faults['wrong']} | {faults['failed']} | {faults['requests']} | {faults['wall_s']:.1f} |")

    print(f"\n## kill -9 mid-run ({args.calls} calls, concurrency 8, {args.latency * 1000:.0f} ms per call)\n")
    print("| trial | requests sent before kill | cached after kill | calls in resumed run | calls repeated |")
    print("|---:|---:|---:|---:|---:|")
    for trial in range(args.kills):
        kill = run_kill(args.calls, trial, args.latency)
        print(f"| {trial + 1} | {kill['sent_before_kill']} | {kill['cached_after_kill']} | {kill['resumed_calls']} | "
              f"{kill['repeated']} |")

    print("\n## Dead endpoint (default spec: concurrency 8, 5 retries, backoff 1 s, dead_after 3)\n")
    print("| endpoint | calls | spec | time to fail all (s) | error |")
    print("|---|---:|---|---:|---|")
    for name, n, spec, wall, error in run_dead(args.calls):
        print(f"| {name} | {n} | {spec} | {wall:.2f} | `{error}` |")

    requests = run_shared(args.calls // 2, args.latency)
    print(f"\n## Two processes sharing one cache\n\n{args.calls // 2} distinct calls each, started together: "
          f"{requests} requests sent (finished calls are shared, calls in flight are not).")


if __name__ == "__main__":
    main()
