"""The set's rows: gold_full, gold_sentence, intrinsic and extrinsic per source pair, and the progression set (k of
5 sentences swapped for their rewrite, nested seeded draws)."""

from __future__ import annotations

from typing import Any

from hallu_metrics.benchmarks.faithfulness import STEPS, expected_score
from hallubench.core.seeding import seeded_rng
from hallubench_generators.faithfulness.rewrites import KINDS, Rewriter
from hallubench_generators.faithfulness.source import Pair


def _row(pair: Pair, kind: str, hypothesis: str, share: float, sentence_index: int, changed: list[int],
         rewrite: str, progression: str = "none", provenance: str = "") -> dict[str, Any]:
    suffix = f"-s{sentence_index}" if sentence_index >= 0 else ""
    ident = f"{pair.index}-{kind}{suffix}" + (f"-{progression}-{len(changed)}" if kind == "progression" else "")
    return {"id": ident, "reference": pair.reference, "hypothesis": hypothesis, "type": kind,
            "hallucinated_share": share, "expected_score": expected_score(share), "progression_kind": progression,
            "source_index": pair.index, "sentence_index": sentence_index, "hallucinated_sentences": changed,
            "rewrite": rewrite, "provenance": provenance}


def sentence_rows(pairs: list[Pair], rewriter: Rewriter, provenance: str) -> list[dict[str, Any]]:
    """gold_full, gold_sentence, intrinsic and extrinsic rows (a sentence whose rewrite failed has no
    hallucinated row)."""
    rewriter.prepare([(p, i, k) for p in pairs for i in range(len(p.sentences)) for k in KINDS])
    rows = []
    for pair in pairs:
        rows.append(_row(pair, "gold_full", pair.hypothesis, 0.0, -1, [], "", provenance=provenance))
        for i, sentence in enumerate(pair.sentences):
            rows.append(_row(pair, "gold_sentence", sentence, 0.0, i, [], "", provenance=provenance))
            for kind in KINDS:
                rewrite = rewriter.get(pair, i, kind)
                if rewrite is not None:
                    rows.append(_row(pair, kind, rewrite.text, 1.0, i, [i], f"{rewrite.kind} {rewrite.change}".strip(),
                                     provenance=provenance))
    return rows


def progression_rows(pairs: list[Pair], rewriter: Rewriter, seed: int, provenance: str) -> list[dict[str, Any]]:
    """For each 5-sentence pair whose 5 sentences all have a rewrite of the kind: k = 0..5 sentences swapped,
    the first k of a seeded permutation (nested: each step adds one hallucinated sentence)."""
    eligible = [p for p in pairs if len(p.sentences) == STEPS]
    rewriter.prepare([(p, i, k) for p in eligible for i in range(STEPS) for k in KINDS])
    rows = []
    for pair in eligible:
        for kind in KINDS:
            rewrites = [rewriter.get(pair, i, kind) for i in range(STEPS)]
            if any(r is None for r in rewrites):
                continue
            order = seeded_rng(seed, "progression", pair.index, kind).sample(range(STEPS), STEPS)
            for k in range(STEPS + 1):
                changed = sorted(order[:k])
                text = " ".join(rewrites[i].text if i in changed else s for i, s in enumerate(pair.sentences))
                rows.append(_row(pair, "progression", text, k / STEPS, -1, changed,
                                 "; ".join(rewrites[i].kind for i in changed), kind, provenance))
    return rows
