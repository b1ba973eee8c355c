"""HHEM summarization's metrics, as on the leaderboard: hallucination rate over valid summaries (scored below 0.5),
answer rate, average summary length; and how much of each pair a windowed classifier saw."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hallu_metrics.benchmarks.hhem_summarization.checks import is_valid_summary, word_count
from hallu_metrics.contract import UNREADABLE_METRIC

THRESHOLD = 0.5  # leaderboard: a summary scored below 0.5 is hallucinated


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per-summary values; rates over valid summaries are None for invalid ones (and for unscored ones). A record
    from a run with judge ``none`` holds only the response: validity is read from it."""
    valid = bool(record["valid"]) if "valid" in record else is_valid_summary(record["response"])
    score = record.get("score")
    scored = valid and score is not None
    hallucinated = float(score < THRESHOLD) if scored else None
    return {
        "hallucination_rate": hallucinated,
        "factual_consistency_rate": None if hallucinated is None else 1.0 - hallucinated,
        "answer_rate": float(valid),
        "average_summary_length": float(word_count(record["response"])) if valid else None,
        UNREADABLE_METRIC: float(valid and score is None),
        "scorer_cut_rate": float(record["scorer_input"]["cut"]) if scored and record.get("scorer_input") else None,
    }


def cut_summary(records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """``scorer_input``: how many scored summaries a classifier saw whole, windowed (several windows over the whole
    document) or cut (part of the document or summary unseen)."""
    seen = [r["scorer_input"] for r in records if r.get("score") is not None and r.get("scorer_input")]
    return {"scorer_input": {"pairs": len(seen), "cut": sum(bool(s["cut"]) for s in seen),
                             "windowed": sum(s["windows"] > 1 and not s["cut"] for s in seen)}}
