"""The faithfulness dataset card: source, rewrite method, counts per type and progression step, rules applied."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from hallu_metrics.benchmarks.faithfulness import TYPES
from hallubench_generators.common.publishing import CardInfo, generation_date


def card_for(rows: list[dict[str, Any]], args: argparse.Namespace, generator: str | None) -> CardInfo:
    counts = Counter(r["type"] for r in rows)
    progression = Counter((r["progression_kind"], r["hallucinated_share"]) for r in rows if r["type"] == "progression")
    rules = Counter(part.split()[0] for r in rows for part in r["rewrite"].split("; ") if part)
    method = (f"LLM rewrites by `{generator}` (greedy, prompts in generators/faithfulness/prompts.py after the "
              "paper's Table 7)"
              if generator else "RULE-BASED rewrites (offline stand-in for the paper's LLM rewrites; "
              "generators/faithfulness/rules.py): intrinsic = one number, month/weekday, named entity or negation "
              "changed; extrinsic = one sentence of an unrelated document appended as a clause")
    source = args.source + (f" (columns: {args.source_columns})" if args.source_columns else "")
    return CardInfo(
        pretty_name="Faithfulness scoring pairs (On A Scale From 1 to 5)",
        license=args.license,
        task_categories=["text-classification"],
        summary="(reference, hypothesis) pairs with expected 1-5 faithfulness scores for benchmarking faithfulness "
                "scorers after Jing et al., \"On A Scale From 1 to 5\" (2025), section 3.1.",
        sections={
            "Generation": f"- source: {source}\n- pairs: {args.n} (progression: "
                          f"{args.n if args.progression_n is None else args.progression_n} requested)\n"
                          f"- seed: {args.seed}\n- rewrites: {method}\n- date: {generation_date()}",
            "Rows": "\n".join(f"- {t}: {counts.get(t, 0)}" for t in TYPES) + "\n- progression (kind, share): "
                    + ", ".join(f"{k} {s:.1f}: {n}" for (k, s), n in sorted(progression.items())),
            "Rewrites applied": ", ".join(f"{k} {n}" for k, n in sorted(rules.items())) or "none",
            "Columns": "`id`, `reference`, `hypothesis`, `type`, `hallucinated_share` (share of hallucinated "
                       "sentences), `expected_score` (5 gold, 1 hallucinated, 5 - 4 x share on the progression "
                       "set), `progression_kind`, `source_index`, `sentence_index`, `hallucinated_sentences`, "
                       "`rewrite` (rule and change per hallucinated sentence), `provenance`.",
        },
    )
