"""``hallubench generate faithfulness``: synthetic faithfulness pairs after Jing et al., "On A Scale From 1 to 5"
(section 3.1, Tables 2 and 7).

From gold (reference, hypothesis) pairs: ``gold_full`` (the hypothesis), ``gold_sentence`` (each hypothesis
sentence alone), ``intrinsic`` (a sentence with one fact contradicted) and ``extrinsic`` (a sentence with one
piece of outside knowledge added), all judged against the whole reference; and the ``progression`` set: for
hypotheses of exactly 5 sentences, k = 0..5 sentences swapped for their intrinsic (or extrinsic) rewrite,
nested seeded draws (the paper's 0% to 100% in 20% steps). Rewrites come from an LLM (``--perturbation llm``,
the paper's method, greedy as in its Appendix A.1) or from documented rules (``--perturbation rules``,
``generators/faithfulness/rules.py``: the offline stand-in).

Modules: ``prompts`` (the rewrite requests), ``source`` (gold pairs), ``rewrites`` (LLM or rules), ``rules``,
``rows``, ``card``.
"""

from __future__ import annotations

import argparse
from typing import Any

import datasets

from hallu_metrics.benchmarks.faithfulness import RUBRIC_TASK, STEPS
from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import seeded_rng
from hallubench_generators.common.protocol import sent
from hallubench_generators.common.publishing import CardInfo
from hallubench_generators.faithfulness.card import card_for
from hallubench_generators.faithfulness.prompts import rewrite_request
from hallubench_generators.faithfulness.rewrites import KINDS, Rewriter
from hallubench_generators.faithfulness.rows import progression_rows, sentence_rows
from hallubench_generators.faithfulness.source import Pair, read_pairs, read_table

PERTURBATIONS = ("llm", "rules")
HELP = "Generate a faithfulness-scorer set: gold, intrinsic, extrinsic, progression"
CLIENT_OPTION = "generator"  # the rewriting model (--perturbation llm); None without --generator
FEATURES = datasets.Features({
    **RUBRIC_TASK.columns,
    "source_index": datasets.Value("int64"),
    "sentence_index": datasets.Value("int64"),  # -1 for multi-sentence hypotheses
    "hallucinated_sentences": datasets.Sequence(datasets.Value("int64")),
    "rewrite": datasets.Value("string"),  # rule applied ("number", "entity", ..., "llm") per changed sentence
    "provenance": datasets.Value("string"),
})


def sent_prompts() -> dict[str, Any]:
    """The rewrite request of each kind on a placeholder sentence (``--perturbation rules`` sends nothing)."""
    return {kind: sent(rewrite_request("{sentence}", kind)) for kind in KINDS}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True,
                        help="gold pairs: .jsonl/.json/.parquet/.csv file, save_to_disk folder or Hub id")
    parser.add_argument("--source-columns", metavar="reference=COL,hypothesis=COL",
                        help="source columns of the reference and the hypothesis, e.g. "
                             "reference=document,hypothesis=right_summary for HaluEval summarization")
    parser.add_argument("--source-revision", help="Hub revision of --source")
    parser.add_argument("--n", type=int, required=True, help="source pairs for the four sentence-level types")
    parser.add_argument("--progression-n", type=int, default=None,
                        help="5-sentence source pairs for the progression set (default: --n; 0: none)")
    parser.add_argument("--perturbation", choices=PERTURBATIONS, default="llm",
                        help="llm: the paper's rewrite prompts sent to --generator (default); rules: offline rules")
    parser.add_argument("--generator", default=None, help="backend spec of the rewriting model (--perturbation llm)")
    parser.add_argument("--outside", help="file or dataset of unrelated documents for rule-based extrinsic clauses "
                                          "(default: other documents of --source)")
    parser.add_argument("--outside-column", default="source", help="column of --outside holding the text")
    parser.add_argument("--license", default="mit", help="license of the output (the source's own)")


def choose(pool: list[Pair], n: int, seed: int, part: str) -> list[Pair]:
    """A seeded choice of up to ``n`` pairs of ``pool``, in source order."""
    return sorted(seeded_rng(seed, part).sample(pool, min(n, len(pool))), key=lambda p: p.index)


def run(args: argparse.Namespace, clients: Any = None) -> tuple[list[dict[str, Any]], CardInfo]:
    if args.n < 1:
        raise HallubenchError("--n must be at least 1")
    if args.perturbation == "llm" and not args.generator:
        raise HallubenchError("--perturbation llm needs --generator SPEC (or use --perturbation rules offline)")
    pairs = read_pairs(args.source, args.source_columns, args.source_revision)
    chosen = choose(pairs, args.n, args.seed, "pairs")
    taken = {p.index for p in chosen}
    five = [p for p in pairs if len(p.sentences) == STEPS and p.index not in taken]
    progression = choose(five, args.n if args.progression_n is None else args.progression_n, args.seed, "progression")
    outside = None
    if args.outside:
        table = read_table(args.outside)
        if args.outside_column not in table.column_names:
            raise HallubenchError(f"--outside {args.outside} has no column {args.outside_column!r}")
        outside = [str(t) for t in table[args.outside_column] if t]
    client = clients if args.perturbation == "llm" else None
    if args.perturbation == "llm" and client is None:
        raise HallubenchError("--perturbation llm needs --generator SPEC (or use --perturbation rules offline)")
    try:
        rewriter = Rewriter(args.perturbation, args.seed, pairs, client, outside)
        provenance = f"perturbation={args.perturbation}" + (f",generator={client.public_spec}" if client else "")
        rows = sentence_rows(chosen, rewriter, provenance) + progression_rows(progression, rewriter, args.seed,
                                                                              provenance)
    finally:
        if client is not None:
            client.report()
    return rows, card_for(rows, args, client.public_spec if client else None)
