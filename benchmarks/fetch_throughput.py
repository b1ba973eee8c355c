"""Pages per second of the WildHallucinations knowledge fetcher (fetch + trafilatura cleaning + SQLite
commit per page) against the loopback page server, with injected latency, at several concurrency
levels. Prints a markdown table (docs/benchmarks.md).

    python benchmarks/fetch_throughput.py [--pages 200] [--latency 0 0.05 0.2] [--concurrency 1 4 16 64]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import _test_support  # noqa: F401  (tests/ on the path: the loopback servers)
from loopback_pages import LoopbackPageServer, Route

from hallubench_generators.wildhallucinations.fetch import Fetcher, FetchPolicy, verdict
from hallubench_generators.wildhallucinations.webcache import WebCache

PARAGRAPH = "<p>Lake Baikal is a rift lake in Siberia; it is the deepest and oldest freshwater lake on Earth. </p>"


def article(i: int, kilobytes: int) -> bytes:
    body = PARAGRAPH * (kilobytes * 1024 // len(PARAGRAPH))
    return f"<html><head><title>Page {i}</title></head><body><nav>Home | About</nav><article><h1>Page {i}</h1>{body}" \
           f"</article></body></html>".encode()


def measure(pages: int, latency: float, concurrency: int, per_host: int, kilobytes: int) -> tuple[float, int]:
    """(pages per second, peak requests in flight) for one fresh cache."""
    routes = {f"/p{i}": Route(article(i, kilobytes)) for i in range(pages)}
    with LoopbackPageServer(routes, latency=latency) as server, tempfile.TemporaryDirectory() as tmp:
        fetcher = Fetcher(WebCache(Path(tmp) / "web.sqlite"), FetchPolicy(concurrency=concurrency, per_host=per_host))
        started = time.perf_counter()
        fetched = fetcher.fetch_all([server.url(p) for p in routes], desc=f"c={concurrency} latency={latency}")
        elapsed = time.perf_counter() - started
    if any(verdict(p) != "ok" for p in fetched.values()):
        raise SystemExit("a benchmark page was not fetched cleanly")
    return pages / elapsed, server.peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--kilobytes", type=int, default=20, help="size of each page")
    parser.add_argument("--latency", type=float, nargs="+", default=[0.0, 0.05, 0.2], help="seconds added per request")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16, 64])
    args = parser.parse_args()
    import trafilatura  # noqa: F401  (imported once up front so that the first level does not pay for it)

    print("| latency (s) | concurrency | per-host limit | peak in flight | pages/s |")
    print("|---:|---:|---:|---:|---:|")
    for latency in args.latency:
        for concurrency in args.concurrency:
            rate, peak = measure(args.pages, latency, concurrency, concurrency, args.kilobytes)
            print(f"| {latency} | {concurrency} | {concurrency} | {peak} | {rate:.1f} |", flush=True)
        rate, peak = measure(args.pages, latency, max(args.concurrency), FetchPolicy.per_host, args.kilobytes)
        print(f"| {latency} | {max(args.concurrency)} | {FetchPolicy.per_host} (default) | {peak} | {rate:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
