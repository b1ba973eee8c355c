"""Knowledge store at Wikipedia scale: build time, title lookups, per-claim retrieval latency, peak memory.

Builds a FActScore-format store of N synthetic pages (default 1,000,000; FActScore's enwiki-20230401.db has
~6M), then measures: writing it (database + title index), building the title index alone (what the first open
of a user's FActScore database costs), entity -> title lookups (substring search through the FTS5 trigram index
and the exact span lookups ``candidate_titles`` makes), and retrieval of the top-5 passages for one claim over
5 candidate pages of 40 passages with the offline MiniLM embedder, once those pages' embeddings are cached.
Latencies are given as wall time and as this process's CPU time (the wall time on an idle core, for
single-threaded work on data in memory: the machine may be shared). Prints a markdown table.
With ``--titles-only`` the pages get a one-word text, written straight into FActScore's table: the title index and
the lookups (which read only the sidecar index) at full size in minutes, without the retrieval rows.
Usage: python benchmarks/knowledge_store_scale.py [--pages 1000000] [--workdir DIR] [--titles-only]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import torch

from hallu_metrics.longform import (
    EmbeddingCache,
    KnowledgeStore,
    Retriever,
    candidate_titles,
    offline_embedder,
    write_store,
)
from hallu_metrics.longform.title_index import default_index_path

SYLLABLES = [a + b for a in "bcdfghklmnprstvz" for b in ("a", "e", "i", "o", "u", "an", "er", "is", "on")]
SUFFIXES = ["", "", "", " (film)", " (album)", " (band)", " (novel)", " River", " County", " F.C."]
TOPIC_PAGES = 5
TOPIC_PASSAGES = 40


def pseudo_word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def synthetic_titles(n: int, rng: random.Random) -> list[str]:
    """Unique Wikipedia-like titles: 1-3 capitalised pseudo-words plus an occasional qualifier."""
    titles: dict[str, None] = {}
    while len(titles) < n:
        words = " ".join(pseudo_word(rng).capitalize() for _ in range(rng.choice((1, 2, 2, 2, 3))))
        titles[words + rng.choice(SUFFIXES)] = None
    return list(titles)


def synthetic_pages(titles: list[str], vocabulary: list[str], seed: int):
    """(title, text) pages of 40-400 words; the first TOPIC_PAGES pages get TOPIC_PASSAGES full passages."""
    rng = random.Random(f"{seed}:text")
    for i, title in enumerate(titles):
        words = 187 * TOPIC_PASSAGES if i < TOPIC_PAGES else rng.randint(40, 400)
        yield title, f"{title} is " + " ".join(rng.choices(vocabulary, k=words)) + "."


def ms3(samples: list[float]) -> str:
    """p50 / p95 / max of durations in seconds, as milliseconds."""
    ms = sorted(s * 1000 for s in samples)
    return f"{statistics.median(ms):.2f} / {ms[min(len(ms) - 1, int(0.95 * len(ms)))]:.2f} / {ms[-1]:.2f}"


def timed(fn, *args):
    """(result, wall seconds, CPU seconds of this process). On a shared machine the CPU time is what the call
    would take on an idle core (for single-threaded work whose data is in memory)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def latency_rows(name: str, runs: list[tuple]) -> list[tuple[str, str]]:
    """Wall and CPU p50 / p95 / max rows for the timed runs of one operation."""
    return [(f"{name}: wall p50 / p95 / max (ms)", ms3([r[1] for r in runs])),
            ("  CPU time p50 / p95 / max (ms)", ms3([r[2] for r in runs]))]


def lookup_queries(titles: list[str], rng: random.Random, n: int) -> list[str]:
    """Entity strings as NER would give them: whole titles, one word of a title, or two adjacent words."""
    queries = []
    for title in rng.sample(titles, n):
        words = title.split(" (")[0].split()
        kind = rng.randrange(3)
        if kind == 0 or len(words) == 1:
            queries.append(title.split(" (")[0])
        elif kind == 1:
            queries.append(rng.choice(words))
        else:
            start = rng.randrange(len(words) - 1)
            queries.append(" ".join(words[start : start + 2]))
    return queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--claims", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--titles-only", action="store_true",
                        help="pages of a one-word text and no retrieval rows: title index and lookups only")
    parser.add_argument("--workdir", type=Path, help="keep the store here and reuse it on the next run "
                        "(default: a temporary folder, removed after)")
    args = parser.parse_args()
    if args.workdir:
        run(args, args.workdir)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            run(args, Path(tmp))


def build(args: argparse.Namespace, titles: list[str], vocabulary: list[str], tmp: Path, rows: list) -> Path:
    """Write the store (or reuse the one a previous run left in ``--workdir``) and time its title index."""
    db = tmp / "kb" / "knowledge.db"
    if not db.exists() and args.titles_only:
        db.parent.mkdir(parents=True, exist_ok=True)
        _, write_s, _ = timed(write_titles_only, db, titles)
        rows.append(("write titles-only database (s)", f"{write_s:.1f}"))
    if not db.exists():
        stats, build_s, _ = timed(
            lambda: write_store(tmp / "kb", synthetic_pages(titles, vocabulary, args.seed), total=len(titles))
        )
        rows.append(("pages / passages written", f"{stats.pages:,} / {stats.passages:,}"))
        rows.append(("write store: database + title index (s)", f"{build_s:.1f}"))
    default_index_path(db).unlink(missing_ok=True)  # missing when a previous run was stopped while indexing
    with KnowledgeStore.open(db) as store:
        _, index_s, _ = timed(store.title_index)
    rows.append(("title index alone, first open of an unindexed db (s)", f"{index_s:.1f}"))
    rows.append(("database / title index size (MB)",
                 f"{db.stat().st_size / 2**20:,.0f} / {default_index_path(db).stat().st_size / 2**20:,.0f}"))
    return db


def write_titles_only(db: Path, titles: list[str]) -> None:
    """FActScore's ``documents`` table with the titles and a one-word text each."""
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE documents (title PRIMARY KEY, text)")
    conn.executemany("INSERT INTO documents VALUES (?, 'text')", ((title,) for title in titles))
    conn.commit()
    conn.close()


def run(args: argparse.Namespace, tmp: Path) -> None:
    rng = random.Random(f"{args.seed}:titles")
    titles = synthetic_titles(args.pages, rng)
    vocabulary = [pseudo_word(rng) for _ in range(20_000)]
    rows: list[tuple[str, str]] = []
    store = KnowledgeStore.open(build(args, titles, vocabulary, tmp, rows))

    queries = lookup_queries(titles, random.Random(f"{args.seed}:queries"), args.queries)
    substring = [timed(store.titles_containing, q, 100) for q in queries]
    rows += latency_rows("titles_containing(entity, 100)", substring)
    rows.append(("  mean titles returned (cap 100)", f"{statistics.mean(len(run[0]) for run in substring):.1f}"))
    question_entities = [queries[i : i + 3] for i in range(0, len(queries) - 2, 3)]
    candidates = [
        timed(candidate_titles, store, f"How are {', '.join(ents)} related?", f"{ents[0]} was founded early.",
              titles[0], lambda _q, ents=ents: ents)
        for ents in question_entities
    ]
    rows += latency_rows("candidate_titles, 3 entities", candidates)

    if not args.titles_only:
        retrieval_rows(args, store, titles, vocabulary, tmp, rows)
    rows.append(("peak RSS (MB)", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f}"))
    rows.append(("machine load average at the end (1 / 5 / 15 min)", " / ".join(f"{x:.1f}" for x in os.getloadavg())))
    store.close()

    kind = " (titles only)" if args.titles_only else ""
    print(f"\n{args.pages:,} synthetic pages{kind}\n\n| measure | value |\n|---|---:|")
    for name, value in rows:
        print(f"| {name} | {value} |")


def retrieval_rows(args: argparse.Namespace, store: KnowledgeStore, titles: list[str], vocabulary: list[str],
                   tmp: Path, rows: list) -> None:
    """Retrieval of claims over the first pages' passages with the offline MiniLM embedder."""
    embedder = offline_embedder()
    topic_titles = titles[:TOPIC_PAGES]
    cache_path = tmp / "embeddings.sqlite"
    cache_path.unlink(missing_ok=True)
    retriever = Retriever(store, embedder, cache=EmbeddingCache(cache_path))
    _, first_s, _ = timed(retriever.retrieve, "warm-up claim", topic_titles)
    rows.append((f"first claim: embed {TOPIC_PAGES * TOPIC_PASSAGES} passages of 5 pages (s)", f"{first_s:.1f}"))

    def claim(i: int) -> str:
        return f"{topic_titles[0]} {' '.join(random.Random(i).choices(vocabulary, k=12))}."

    claims = [claim(i) for i in range(args.claims)]
    threads = torch.get_num_threads()
    rows += latency_rows(f"retrieve a new claim ({threads} torch threads)",
                         [timed(retriever.retrieve, c, topic_titles) for c in claims])
    rows += latency_rows("same claims again: query vector cached, so store + cache + ranking only",
                         [timed(retriever.retrieve, c, topic_titles) for c in claims])
    rows += latency_rows("same, empty LRU: vectors read from SQLite", [
        timed(Retriever(store, embedder, cache=EmbeddingCache(cache_path)).retrieve, c, topic_titles)
        for c in claims[:10]
    ])
    torch.set_num_threads(1)
    rows += latency_rows("retrieve a new claim (1 torch thread)",
                         [timed(retriever.retrieve, claim(args.claims + i), topic_titles) for i in range(args.claims)])


if __name__ == "__main__":
    main()
