"""ANAH-v2's metrics: per response (``response_*``, what lm-eval reports) and sentences pooled over responses as
the official scorer aggregates them (``extra_summary``), both the project's reading and the official replay."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

SENTENCE_LABELS = ("ok", "nofact", "contradictory", "unverifiable", "unparseable")
HALLUCINATED = ("contradictory", "unverifiable")
OUTCOMES = ("faithful", "hallucinated", "unjudged", "empty")
OFFICIAL_LABELS = ("ok", "nofact", "contradictory", "unverifiable", "unreadable")  # unreadable: eval.py's None


def response_outcome(labels: Sequence[str]) -> str:
    if not labels:
        return "empty"
    if any(label in HALLUCINATED for label in labels):
        return "hallucinated"
    return "unjudged" if "unparseable" in labels else "faithful"


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def official_counts(record: dict[str, Any]) -> dict[str, int]:
    """The official replay's label counts of a response; for a record without them (sentence labels given to the
    evaluate module, records judged before the replay existed) eval.py's aggregation of the project's labels, an
    unparseable sentence as its None."""
    if "official_counts" in record:
        return record["official_counts"]
    counts = record["counts"]
    return {**{label: counts.get(label, 0) for label in OFFICIAL_LABELS[:-1]}, "unreadable": counts["unparseable"]}


def _official_hallucinated(counts: Mapping[str, int]) -> tuple[int, int]:
    """(hallucinated, all sentences) as eval.py counts them: unreadable sentences in the total."""
    return sum(counts[label] for label in HALLUCINATED), sum(counts.values())


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per response: the share of its sentences hallucinated (fixed: unparseable sentences left out; official: the
    replay of eval.py, its unreadable sentences counted as not hallucinated), unparseable, and whether the answer has
    no sentence at all."""
    counts = record["counts"]
    total = sum(counts.values())
    hallucinated = sum(counts[label] for label in HALLUCINATED)
    return {
        "response_hallucination_rate": _ratio(hallucinated, total - counts["unparseable"]),
        "response_hallucination_rate_official": _ratio(*_official_hallucinated(official_counts(record))),
        "judge_unparseable_rate": _ratio(counts["unparseable"], total),
        "empty_response_rate": float(total == 0),
    }


def pooled_rate(pairs: Sequence[tuple[int, int]]) -> tuple[float | None, float | None]:
    """sum(k) / sum(n) over responses' (k, n) and its standard error as a ratio estimator with responses as
    clusters (sentences of one answer are not independent); None where undefined."""
    pairs = [(k, n) for k, n in pairs if n]
    total = sum(n for _, n in pairs)
    if not total:
        return None, None
    rate = sum(k for k, _ in pairs) / total
    m = len(pairs)
    if m < 2:
        return rate, None
    variance = m / (m - 1) * sum((k - rate * n) ** 2 for k, n in pairs) / total ** 2
    return rate, math.sqrt(variance)


def _pooled(records: Sequence[dict]) -> dict[str, Any]:
    counts = [r["counts"] for r in records]
    hallucinated = [sum(c[label] for label in HALLUCINATED) for c in counts]
    totals = [sum(c.values()) for c in counts]
    fixed = pooled_rate([(h, t - c["unparseable"]) for h, t, c in zip(hallucinated, totals, counts)])
    official_by_response = [official_counts(r) for r in records]
    official = pooled_rate([_official_hallucinated(c) for c in official_by_response])
    official_summed = Counter()
    for c in official_by_response:
        official_summed.update(c)
    unparseable = pooled_rate([(c["unparseable"], t) for c, t in zip(counts, totals)])
    summed = Counter()
    for c in counts:
        summed.update(c)
    return {
        "hallucination_rate": fixed[0], "hallucination_rate_official": official[0],
        "judge_unparseable_rate": unparseable[0],
        "stderr": {"hallucination_rate": fixed[1], "hallucination_rate_official": official[1],
                   "judge_unparseable_rate": unparseable[1]},
        "sentences": sum(totals), "label_counts": {label: summed[label] for label in SENTENCE_LABELS},
        "official_label_counts": {label: official_summed[label] for label in OFFICIAL_LABELS},
    }


def sentence_summary(records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """The official aggregation, sentences pooled over responses: ``hallucination_rate`` (unparseable sentences
    left out), ``hallucination_rate_official`` (the official eval.py replayed), and under ``sentence_level`` their
    stderr, label counts (the project's and the replay's) and the same numbers per language."""
    pooled = _pooled(records)
    languages = sorted({d["language"] for d in docs})
    pooled["by_language"] = {lang: _pooled([r for r, d in zip(records, docs) if d["language"] == lang])
                             for lang in languages}
    return {"hallucination_rate": pooled["hallucination_rate"],
            "hallucination_rate_official": pooled["hallucination_rate_official"], "sentence_level": pooled}
