"""The faithfulness benchmarks' metrics (Jing et al., sections 4.1-4.2): expected scores, residuals and the
progression summary."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from hallu_metrics.contract import UNREADABLE_METRIC

TYPES = ("gold_full", "gold_sentence", "intrinsic", "extrinsic", "progression")
RESIDUAL_TYPES = TYPES[:4]  # the paper's residuals (Figure 2, Table 10); progression has its own metrics
PROGRESSION_KINDS = ("intrinsic", "extrinsic")
STEPS = 5  # sentences per progression hypothesis: shares 0, 0.2, ..., 1
GOLD_SCORE, HALLUCINATED_SCORE = 5.0, 1.0
OUTCOMES = ("scored", "unparseable", "failed")


def expected_score(share: float) -> float:
    """5 for a faithful hypothesis, 1 for a fully hallucinated one (the paper's convention); in between
    (progression set only) linear in the share of hallucinated sentences, our choice: the paper states
    only the two ends (Figure 3)."""
    return GOLD_SCORE - (GOLD_SCORE - HALLUCINATED_SCORE) * share


def sample_metrics(record: dict[str, Any], doc: dict) -> dict[str, float | None]:
    """``residual`` (paper types only), ``score`` (any scored pair), ``judge_unparseable_rate`` (every pair)."""
    score = record.get("score")
    scored = score is not None
    return {
        "residual": abs(float(doc["expected_score"]) - float(score)) if scored and doc["type"] in RESIDUAL_TYPES
        else None,
        "score": float(score) if scored else None,
        UNREADABLE_METRIC: float(not scored),
    }


def progression_summary(records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """Mean score per share for each progression kind and ``delta_per_step`` = (score at share 1 - score at
    share 0) / 5 (Table 4; negative when the scorer follows the hallucination). Share 0 of a kind is its
    gold 5-sentence hypothesis; None where a share has no scored pair."""
    scores: dict[str, dict[float, list[float]]] = {kind: defaultdict(list) for kind in PROGRESSION_KINDS}
    for record, doc in zip(records, docs):
        if doc["type"] == "progression" and doc["progression_kind"] in scores:
            bucket = scores[doc["progression_kind"]][round(float(doc["hallucinated_share"]), 6)]
            if record.get("score") is not None:
                bucket.append(float(record["score"]))
    out: dict[str, Any] = {"progression": {}}
    for kind, by_share in scores.items():
        if not by_share:
            continue
        means = {share: (sum(v) / len(v) if v else None) for share, v in sorted(by_share.items())}
        start, end = means.get(0.0), means.get(1.0)
        delta = (end - start) / STEPS if start is not None and end is not None else None
        out["progression"][kind] = {
            "shares": list(means), "scores": list(means.values()), "n": [len(by_share[s]) for s in means],
            "delta_per_step": delta,
        }
        out[f"delta_per_step_{kind}"] = delta
    return out
