"""HHEM-2.1 scorer speed: pairs/s for short pairs (one window) and long pairs (reference 4x the window).

Builds a randomly initialised HHEM-2.1 stand-in with flan-t5-base's real architecture (same compute as the
real model, no download), loads it through ``make_classifier_scorer`` and times ``score`` per workload,
windowing mode and batch size (1 = one window at a time), best of ``--repeats`` runs, in wall and in
CPU seconds (the CPU may be shared). Prints a markdown table.
Usage: python benchmarks/hhem_window_speed.py [--short 32] [--long 8] [--batch-sizes 1 8] [--repeats 2] [--threads N]
       [--device cpu]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

import torch

from hallu_metrics.scorers import make_classifier_scorer
from hallu_metrics.scorers.stand_ins import FLAN_T5_BASE_CONFIG, write_hhem_2_1

WORDS = [f"w{i}" for i in range(2000)]  # one token each with the stand-in's word-level tokenizer
WINDOW = 512


def workloads(n_short: int, n_long: int) -> dict[str, list[tuple[str, str]]]:
    """Short: 100-300-token references; long: 4 x 512-token references; hypotheses of 20-40 tokens."""
    rng = random.Random("hhem-window-speed:0")

    def text(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n))

    return {
        "short": [(text(rng.randint(100, 300)), text(rng.randint(20, 40))) for _ in range(n_short)],
        "long": [(text(4 * WINDOW), text(rng.randint(20, 40))) for _ in range(n_long)],
    }


def timed(score, pairs: list[tuple[str, str]]) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds (the latter barely moves when other jobs share the CPU)."""
    wall, cpu = time.perf_counter(), time.process_time()
    score(pairs)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=32)
    parser.add_argument("--long", type=int, default=8)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(), help="torch intra-op threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model, foundation = write_hhem_2_1(Path(tmp), WORDS, FLAN_T5_BASE_CONFIG)
        for name, pairs in workloads(args.short, args.long).items():
            for window in ("sliding", "truncate") if name == "long" else ("sliding",):
                for batch_size in args.batch_sizes:
                    scorer = make_classifier_scorer({
                        "model": str(model), "foundation": str(foundation), "window": window,
                        "batch_size": str(batch_size), "device": args.device, "max_length": str(WINDOW)})
                    windows = sum(len(w) for w in scorer.windows(pairs)[0])
                    scorer.score(pairs[:1])  # warm-up
                    runs = [timed(scorer.score, pairs) for _ in range(args.repeats)]
                    wall, cpu = min(wall for wall, _ in runs), min(cpu for _, cpu in runs)
                    rows.append((name, window, batch_size, len(pairs), windows, wall, cpu))
    print(f"\nflan-t5-base-sized HHEM-2.1 stand-in, {args.device}, torch threads {torch.get_num_threads()}, "
          f"load average at the end {os.getloadavg()[0]:.1f}\n")
    print("| pairs | window | batch size | pairs | windows | wall (s) | pairs/s | windows/s | CPU s per pair |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, window, batch_size, n, windows, wall, cpu in rows:
        print(f"| {name} | {window} | {batch_size} | {n} | {windows} | {wall:.1f} | {n / wall:.2f} | "
              f"{windows / wall:.2f} | {cpu / n:.2f} |")


if __name__ == "__main__":
    main()
